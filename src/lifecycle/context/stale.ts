/**
 * What a `garden --stale` run is told about each page it targets: the evidence drift found
 * changed, missing or moved, and the diff of each changed or missing file since the commit the
 * page was verified at (committed and uncommitted changes together). Each page's material is
 * budgeted like an ingest source: a fair share of the prompt, the whole of it in a file of the
 * run's folder when it is cut.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { commandFailureLine, gitEnvironment, type CommandRunner } from "../../core/command.js";
import type { PageDrift, SourceDrift } from "../../evidence/types.js";
import type { PageEvidence } from "../../index/views/evidence.js";
import { cutText, fairShares } from "../../sources/budget.js";
import { redact, type PrivacyRules } from "../../privacy/redact.js";

const GIT_TIMEOUT_MS = 60_000;
/** One file's diff is read up to this size; a diff larger still is cut, and its section says so. */
const DIFF_LIMIT_BYTES = 8 * 1024 * 1024;
/** Diffs computed at once: enough to overlap git's start-up, few enough for a shared machine. */
const DIFF_CONCURRENCY = 4;
/** Commits named per source; the rest are counted. */
const COMMITS_SHOWN = 5;

/** A drifting source of a page: what it cites and why drift flags it. */
export interface StaleSource {
  id: string;
  path: string;
  lines: string | null;
  status: SourceDrift["status"];
  reason: string;
  /** The commits that changed it since it was verified, newest first. */
  commits: string[];
}

/**
 * One page's material. Its text lists the page's drifting evidence, then the diffs, so the
 * whole of it is cut to the page's share of the budget together (the list first); the runtime
 * context carries only counts, whatever the number of sources.
 */
export interface StalePageBrief {
  slug: string;
  /** The page file, relative to the repository root. */
  file: string;
  verified_at: string | null;
  /** The changed and missing sources (moved ones have nothing to correct but their lines). */
  stale: StaleSource[];
  moved: StaleSource[];
  /** The material as the prompt carries it. */
  text: string;
  /** Characters of the whole material, before any cut. */
  totalChars: number;
  truncated: boolean;
  /** When cut: the whole material, in the run's folder. */
  materialPath?: string;
}

export interface StaleMaterialInput {
  root: string;
  /** The run's folder: where cut diffs go. */
  workDir: string;
  budgetChars: number;
  pages: readonly PageDrift[];
  /** The same pages' file sources as indexed, for each source's own stamp commit. */
  evidence: readonly PageEvidence[];
  run: CommandRunner;
  env: NodeJS.ProcessEnv;
  /** `privacy.redact`'s patterns, beside the built-in detectors. */
  rules?: PrivacyRules;
}

/** One diff per distinct (commit, file): two sources citing one file since one commit share it. */
interface DiffJob {
  key: string;
  bases: string[];
  path: string;
  citedBy: string[];
  missing: boolean;
}

type DiffOutcome = { base: string; text: string; notes: string[] } | { base: null; text: ""; notes: string[] };

export async function staleMaterial(input: StaleMaterialInput): Promise<StalePageBrief[]> {
  const stamps = stampCommits(input.evidence);
  const perPage = input.pages.map((page) => ({ page, jobs: diffJobs(page, stamps.get(page.slug) ?? new Map()) }));
  const unique = new Map<string, DiffJob>();
  for (const { jobs } of perPage) for (const job of jobs) if (!unique.has(job.key)) unique.set(job.key, job);
  const outcomes = new Map<string, DiffOutcome>();
  await mapLimited([...unique.values()], DIFF_CONCURRENCY, async (job) => outcomes.set(job.key, await diffSince(input, job)));

  // Diffs are file content: redacted before they are measured, cut or written to the run's folder.
  const texts = await Promise.all(
    perPage.map(async ({ page, jobs }) => (await redact([evidenceList(page), ...jobs.map((job) => diffSection(job, outcomes.get(job.key)!))].join("\n"), input.rules)).text),
  );
  const shares = fairShares(
    texts.map((text) => text.length),
    input.budgetChars,
  );
  return Promise.all(perPage.map(({ page }, index) => toBrief(page, texts[index]!, shares[index]!, index, input.workDir)));
}

/** Each page's stamp commit per source id, where the product stamped one. */
function stampCommits(evidence: readonly PageEvidence[]): Map<string, Map<string, string>> {
  const bySlug = new Map<string, Map<string, string>>();
  for (const page of evidence) {
    const sources = new Map<string, string>();
    for (const source of page.sources) if (source.verified_at !== null && !sources.has(source.source_id)) sources.set(source.source_id, source.verified_at);
    bySlug.set(page.slug, sources);
  }
  return bySlug;
}

/**
 * The commit each stale source was verified at: its own stamp's, else the page's (drift's
 * `verified_at`, the page file's last commit). When the stamp's commit is not in this history
 * (rewritten since), the page's is tried next.
 */
function diffJobs(page: PageDrift, stamps: ReadonlyMap<string, string>): DiffJob[] {
  const jobs = new Map<string, DiffJob>();
  for (const source of page.sources) {
    if (source.status !== "changed" && source.status !== "missing") continue;
    const bases = [...new Set([stamps.get(source.id), page.verified_at].filter((sha): sha is string => typeof sha === "string" && /^[0-9a-f]{7,64}$/.test(sha)))];
    const key = `${bases.join(",")}\u0000${source.path}`;
    const job = jobs.get(key) ?? { key, bases, path: source.path, citedBy: [], missing: source.status === "missing" };
    job.citedBy.push(`[@${source.id}]${source.lines !== null ? ` lines ${source.lines}` : ""}`);
    jobs.set(key, job);
  }
  return [...jobs.values()];
}

/** `git diff <commit> -- <path>`: the commit against the working tree, so uncommitted changes are in it too. */
async function diffSince(input: StaleMaterialInput, job: DiffJob): Promise<DiffOutcome> {
  const notes: string[] = [];
  if (job.bases.length === 0) return { base: null, text: "", notes: [`${job.path}: no commit to compare with (the page was never verified in git)`] };
  for (const base of job.bases) {
    const result = await input.run(
      "git",
      ["-c", "core.quotePath=false", "--literal-pathspecs", "diff", "--no-color", "--no-ext-diff", "--no-textconv", base, "--", job.path],
      { cwd: input.root, env: gitEnvironment(input.env), timeoutMs: GIT_TIMEOUT_MS, maxOutputBytes: DIFF_LIMIT_BYTES },
    );
    if (result.code === 0) {
      if (result.truncated) notes.push(`${job.path}: the diff since ${short(base)} is larger than ${DIFF_LIMIT_BYTES / 1024 / 1024} MiB and was cut there`);
      return { base, text: result.stdout, notes };
    }
    if (result.notFound) throw new Error("git is not installed or not on PATH: the stale pages' diffs cannot be computed");
    if (result.timedOut) throw new Error(`git diff ${short(base)} -- ${job.path} timed out`);
    notes.push(`${job.path}: git cannot diff since ${short(base)}: ${commandFailureLine(result) || `exit ${result.code}`}`);
  }
  return { base: null, text: "", notes };
}

/** What drift says of each drifting source of the page, one line each. */
function evidenceList(page: PageDrift): string {
  const line = (source: SourceDrift) => {
    const lines = source.lines !== null ? ` lines ${source.lines}` : "";
    const shown = source.commits.slice(0, COMMITS_SHOWN).map(short);
    const more = source.commits.length > COMMITS_SHOWN ? ` and ${source.commits.length - COMMITS_SHOWN} more` : "";
    const commits = shown.length > 0 ? ` (${shown.join(", ")}${more})` : "";
    return `- [@${source.id}] ${source.path}${lines}: ${source.status}: ${source.reason}${commits}`;
  };
  const stale = page.sources.filter((s) => s.status === "changed" || s.status === "missing").map(line);
  const moved = page.sources.filter((s) => s.status === "moved").map(line);
  const verified = page.verified_at !== null ? `, verified at ${short(page.verified_at)}` : "";
  const parts = [`# ${page.slug} (${page.file}${verified})`, "", "Stale evidence:", ...stale];
  if (moved.length > 0) parts.push("", "Moved evidence (the cited text is unchanged; point `lines` at where it is now):", ...moved);
  return `${parts.join("\n")}\n`;
}

function diffSection(job: DiffJob, outcome: DiffOutcome): string {
  const cited = `cited by ${job.citedBy.join(", ")}`;
  const notes = outcome.notes.map((note) => `(${note})\n`).join("");
  if (outcome.base === null) return `## ${job.path} (${cited}): no diff\n${notes}`;
  const gone = job.missing ? ", gone now" : "";
  const header = `## ${job.path} since ${short(outcome.base)} (${cited}${gone})`;
  const body =
    outcome.text === ""
      ? "git shows no difference from that commit: what was verified was probably never committed; compare the page with the file as it is now.\n"
      : outcome.text.endsWith("\n")
        ? outcome.text
        : `${outcome.text}\n`;
  return `${header}\n${notes}${body}`;
}

async function toBrief(page: PageDrift, text: string, share: number, index: number, workDir: string): Promise<StalePageBrief> {
  const listed = (wanted: (s: SourceDrift) => boolean) =>
    page.sources.filter(wanted).map((s): StaleSource => ({ id: s.id, path: s.path, lines: s.lines, status: s.status, reason: s.reason, commits: s.commits }));
  const brief: StalePageBrief = {
    slug: page.slug,
    file: page.file,
    verified_at: page.verified_at,
    stale: listed((s) => s.status === "changed" || s.status === "missing"),
    moved: listed((s) => s.status === "moved"),
    text,
    totalChars: text.length,
    truncated: false,
  };
  if (text.length <= share) return brief;
  const path = join(workDir, "stale", `${String(index + 1).padStart(2, "0")}-${page.slug.replace(/[^A-Za-z0-9._-]+/g, "_")}.md`);
  await mkdir(join(workDir, "stale"), { recursive: true });
  await writeFile(path, text, "utf8");
  brief.text = cutText(text, share, "head", path);
  brief.truncated = true;
  brief.materialPath = path;
  return brief;
}

const short = (sha: string) => sha.slice(0, 12);

async function mapLimited<T>(items: T[], limit: number, call: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await call(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
