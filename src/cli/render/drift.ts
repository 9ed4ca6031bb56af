import type { CliContext } from "../context.js";
import type { DriftReport, PageDrift, SourceDrift } from "../../evidence/types.js";
import { plural } from "./format.js";
import { newestCommits } from "../../evidence/json.js";

const short = (sha: string | null) => (sha === null ? "none" : sha.slice(0, 10));

export function renderDrift(ctx: CliContext, report: DriftReport, options: { all: boolean }): void {
  const s = ctx.out;
  const shown = report.pages.filter((page) => options.all || page.status !== "fresh");
  const lines: string[] = [];
  if (report.notice !== null) lines.push(s.dim(`note: ${report.notice}`));
  for (const page of shown) lines.push(...pageLines(ctx, page, options.all));
  const count = (status: PageDrift["status"]) => report.pages.filter((page) => page.status === status).length;
  const stale = count("stale");
  const moved = count("moved");
  const unknown = count("unknown");
  const head = report.head === null ? "" : ` at ${short(report.head)}`;
  const tally = [`${stale} stale`, `${moved} moved`, ...(unknown > 0 ? [`${unknown} unknown`] : [])].join(", ");
  if (stale + moved === 0 && unknown === 0) lines.push(`${s.green("no drift")}: ${plural(report.pages.length, "page")} checked${head}`);
  else lines.push(`${tally} of ${plural(report.pages.length, "page")}${head}${moved > 0 ? s.dim(" (ca drift --fix re-anchors moved evidence)") : ""}`);
  ctx.write(lines.join("\n") + "\n");
}

function pageLines(ctx: CliContext, page: PageDrift, all: boolean): string[] {
  const s = ctx.out;
  const label = page.status === "stale" ? s.red("stale") : page.status === "moved" ? s.yellow("moved") : page.status === "unknown" ? s.dim("unknown") : s.green("fresh");
  const verified = page.verified_at === null ? "" : s.dim(`  verified at ${short(page.verified_at)}`);
  const sources = page.sources.filter((source) => all || source.status !== "fresh");
  return [`${label}  ${s.blue(page.slug)}${verified}`, ...sources.map((source) => `  ${sourceLine(ctx, source)}`)];
}

function sourceLine(ctx: CliContext, source: SourceDrift): string {
  const s = ctx.out;
  const where = source.lines === null ? source.path : `${source.path}:${source.lines}`;
  const { total: n, newest } = newestCommits(source, 5);
  if (source.status === "changed" && n > 0) {
    const shas = `${newest.map(short).join(" ")}${n > 5 ? " …" : ""}`;
    return `${source.id}  ${where}  changed in ${n} commit${n === 1 ? "" : "s"} since verified: ${s.dim(shas)}`;
  }
  return `${source.id}  ${where}  ${source.status}: ${source.reason}`;
}

/**
 * The same list as Markdown, for a CI job's summary (`$GITHUB_STEP_SUMMARY`): a heading, the
 * tally, then each drifting page with the sources that drifted. `base` is the `--base` ref.
 */
export function renderDriftMarkdown(ctx: CliContext, report: DriftReport, options: { all: boolean; base?: string }): void {
  const shown = report.pages.filter((page) => options.all || page.status !== "fresh");
  const count = (status: PageDrift["status"]) => report.pages.filter((page) => page.status === status).length;
  const [stale, moved, unknown] = [count("stale"), count("moved"), count("unknown")];
  const atHead = report.head === null ? "" : ` at ${code(short(report.head))}`;
  const drifted = stale + moved + unknown > 0;
  const tally = `**${[`${stale} stale`, `${moved} moved`, ...(unknown > 0 ? [`${unknown} unknown`] : [])].join(", ")}**`;
  const pages = plural(report.pages.length, "page");
  let summary: string;
  if (options.base === undefined) summary = drifted ? `${tally} of ${pages}${atHead}.` : `No drift: ${pages} checked${atHead}.`;
  else {
    // In pull-request mode only the pages citing files changed since the merge base are judged.
    const since = `since the merge base with ${code(options.base)}`;
    if (drifted) summary = `${tally} of the ${pages} citing files changed ${since}${atHead}.`;
    else if (report.pages.length === 0) summary = `No drift${atHead}: no page cites a file changed ${since}.`;
    else summary = `No drift${atHead}: the ${pages} citing files changed ${since} still hold.`;
  }
  const lines = ["## CodeAlmanac drift", "", summary];
  if (report.notice !== null) lines.push("", `> note: ${escapeMarkdown(report.notice)}`);
  if (shown.length > 0) lines.push("");
  for (const page of shown) {
    const verified = page.verified_at === null ? "" : ` (verified at ${code(short(page.verified_at))})`;
    lines.push(`- **${page.status}** ${code(page.slug)}${verified}`);
    for (const source of page.sources.filter((s) => options.all || s.status !== "fresh")) lines.push(`  - ${markdownSource(source)}`);
  }
  if (moved > 0) lines.push("", "`ca drift --fix` re-anchors moved evidence.");
  ctx.write(lines.join("\n") + "\n");
}

function markdownSource(source: SourceDrift): string {
  const where = code(source.lines === null ? source.path : `${source.path}:${source.lines}`);
  if (source.status === "changed" && source.commits.length > 0) {
    const n = source.commits.length;
    const shas = source.commits.slice(0, 5).map((sha) => code(short(sha))).join(" ");
    return `${where} changed in ${n} commit${n === 1 ? "" : "s"} since verified: ${shas}${n > 5 ? " …" : ""}`;
  }
  return `${where} ${source.status}: ${escapeMarkdown(source.reason)}`;
}

/** A code span that survives backticks in the text. */
function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = "`".repeat(longest + 1);
  return longest === 0 ? `${fence}${text}${fence}` : `${fence} ${text} ${fence}`;
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>|~#]/g, "\\$&");
}
type Where = { path: string; lines: string | null };
const at = (where: Where) => (where.lines === null ? where.path : `${where.path}:${where.lines}`);

export function renderFix(
  ctx: CliContext,
  result: { fixed: { page: string; source: string; from: Where; to: Where }[]; unstamped: { page: string; source: string | null; reason: string }[] },
): void {
  const s = ctx.out;
  const lines = result.fixed.map((f) => `re-anchored  ${s.blue(f.page)}  ${f.source}  ${at(f.from)} -> ${at(f.to)}`);
  for (const u of result.unstamped) lines.push(`${s.yellow("not fixed")}  ${s.blue(u.page)}${u.source === null ? "" : `  ${u.source}`}: ${u.reason}`);
  const pages = new Set(result.fixed.map((f) => f.page)).size;
  lines.push(result.fixed.length === 0 ? "nothing to fix: no moved evidence" : `fixed ${plural(result.fixed.length, "source")} on ${plural(pages, "page")}`);
  ctx.write(lines.join("\n") + "\n");
}
