import { invalid } from "../../core/errors.js";
import { resolveExecutable } from "../../core/executables.js";
import { runGh, runGit } from "../commands.js";
import type { ResolveContext, SourceTools } from "../context.js";
import type { SourceRef } from "../model.js";

type GithubKind = "github_pr" | "github_issue";

interface GithubTarget {
  kind: GithubKind;
  number: number;
  repository?: string;
  kindPending?: boolean;
}

const NAME = "[A-Za-z0-9_.-]+";
const SHORTHAND_FORMS = "github:pr:<n>, github:issue:<n>, github:<owner>/<repo>#<n>, …/pull/<n> or …/issues/<n>";

/** `github:pr:<n>`, `github:issue:<n>`, `github:<owner>/<repo>#<n>`, `github:<owner>/<repo>/pull/<n>`, `…/issues/<n>`. */
export function parseGithubShorthand(address: string): GithubTarget {
  const body = address.slice("github:".length).trim();
  const local = /^(pr|issue):(.*)$/.exec(body);
  if (local) return { kind: local[1] === "pr" ? "github_pr" : "github_issue", number: parseNumber(local[2]!, address) };
  const hashed = new RegExp(`^(${NAME})/(${NAME})#(.*)$`).exec(body);
  if (hashed) return { kind: "github_issue", kindPending: true, repository: repositoryName(hashed[1]!, hashed[2]!), number: parseNumber(hashed[3]!, address) };
  const pathed = new RegExp(`^(${NAME})/(${NAME})/(pull|issues)/(.*)$`).exec(body);
  if (pathed) return { kind: kindOfSegment(pathed[3]!), repository: repositoryName(pathed[1]!, pathed[2]!), number: parseNumber(pathed[4]!, address) };
  throw invalid(`invalid GitHub address: ${address} (expected ${SHORTHAND_FORMS})`);
}

/** `https://github.com/<owner>/<repo>/pull/<n>[/…]` and `/issues/<n>`; null for other URLs. */
export function parseGithubUrl(url: URL, address: string): GithubTarget | null {
  if (!/^(www\.)?github\.com$/i.test(url.hostname)) return null;
  const [owner, repo, segment, number] = url.pathname.split("/").filter((part) => part !== "");
  if (!owner || !repo || (segment !== "pull" && segment !== "issues") || number === undefined) return null;
  if (!new RegExp(`^${NAME}$`).test(owner) || !new RegExp(`^${NAME}$`).test(repo)) return null;
  return { kind: kindOfSegment(segment), repository: repositoryName(owner, repo), number: parseNumber(number, address) };
}

function kindOfSegment(segment: string): GithubKind {
  return segment === "pull" ? "github_pr" : "github_issue";
}

function repositoryName(owner: string, repo: string): string {
  return `${owner}/${repo.replace(/\.git$/i, "")}`;
}

function parseNumber(text: string, address: string): number {
  if (!/^[1-9]\d{0,9}$/.test(text.trim())) throw invalid(`GitHub number must be a positive whole number: ${address}`);
  return Number(text.trim());
}

/**
 * Builds the ref after checking that gh can run the preparation later: it is on PATH and
 * logged in. A number without a repository is pinned to the repository gh would pick
 * from the git remotes, so the run targets the same one even if it starts elsewhere.
 */
export async function githubRef(
  address: string,
  target: GithubTarget,
  ctx: ResolveContext,
  tools: SourceTools,
  ghReady: () => Promise<void>,
): Promise<SourceRef> {
  await ghReady();
  const repository = target.repository ?? (await repositoryOfRemotes(ctx, tools));
  const ref: SourceRef = { address, kind: target.kind, title: githubTitle(target, repository), number: target.number };
  if (repository) {
    ref.repository = repository;
    if (!target.kindPending) ref.url = `https://github.com/${repository}/${target.kind === "github_pr" ? "pull" : "issues"}/${target.number}`;
  }
  if (target.kindPending) ref.kindPending = true;
  return ref;
}

function githubTitle(target: GithubTarget, repository: string | undefined): string {
  const what = target.kindPending ? "issue or pull request" : target.kind === "github_pr" ? "pull request" : "issue";
  return `GitHub ${what} ${repository ?? ""}#${target.number}`;
}

/** gh must be on PATH and logged in (a token in the environment counts) before a GitHub source is queued. */
export async function checkGhReady(ctx: ResolveContext, tools: SourceTools): Promise<void> {
  if (!resolveExecutable("gh", tools.env)) {
    throw invalid("gh not found on PATH: install the GitHub CLI (https://cli.github.com) to ingest pull requests and issues");
  }
  if (nonBlank(tools.env.GH_TOKEN) || nonBlank(tools.env.GITHUB_TOKEN)) return;
  // `gh auth token` reads the stored credential without a network round trip.
  const token = await runGh(tools, ["auth", "token"], { cwd: ctx.repositoryRoot, timeoutMs: 10_000 });
  if (!token.ok || token.stdout.trim() === "") throw invalid("gh is not logged in: run `gh auth login`");
}

function nonBlank(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== "";
}

/**
 * gh picks the repository for a bare number from the git remotes: the one marked by
 * `gh repo set-default` (`gh-resolved`), else `upstream`, `github`, `origin`. Only a
 * github.com remote is pinned; for any other host the run leaves the choice to gh.
 */
async function repositoryOfRemotes(ctx: ResolveContext, tools: SourceTools): Promise<string | undefined> {
  const outcome = await runGit(tools, ["config", "--get-regexp", "^remote\\..*\\.(url|gh-resolved)$"], { cwd: ctx.repositoryRoot });
  if (!outcome.ok) return undefined;
  const urls = new Map<string, string>();
  const resolved: string[] = [];
  for (const line of outcome.stdout.split("\n")) {
    const match = /^remote\.(.+)\.(url|gh-resolved) (.*)$/.exec(line.trim());
    if (!match) continue;
    if (match[2] === "url") urls.set(match[1]!, match[3]!);
    else resolved.push(match[1]!);
  }
  const chosen = [...resolved, "upstream", "github", "origin"].find((name) => urls.has(name));
  return chosen ? githubRepositoryOfUrl(urls.get(chosen)!) : undefined;
}

export function githubRepositoryOfUrl(url: string): string | undefined {
  const match = new RegExp(`^(?:https?://|ssh://)?(?:[^@/]+@)?(?:www\\.)?github\\.com[:/](${NAME})/(${NAME}?)(?:\\.git)?/?$`, "i").exec(url.trim());
  return match ? repositoryName(match[1]!, match[2]!) : undefined;
}
