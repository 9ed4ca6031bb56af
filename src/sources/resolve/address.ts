import { invalid, isProductError } from "../../core/errors.js";
import type { ResolveContext, SourceTools } from "../context.js";
import { isBareRange } from "../git-ranges.js";
import type { SourceRef } from "../model.js";
import { resolveGitCommit, resolveGitDiff, resolveGitRange } from "./git.js";
import { githubRef, parseGithubShorthand, parseGithubUrl } from "./github.js";
import { resolvePathAddress } from "./paths.js";
import { resolveTranscriptAddress } from "./transcript.js";
import { hasOtherScheme, isWebAddress, parseWebUrl, webRef } from "./url.js";

/** Per resolve call: checks worth doing once however many addresses need them. */
export interface ResolveSession {
  ghReady: () => Promise<void>;
}

const GIT_FORMS = "git:range:<A..B>, git:commit:<rev>, git:diff or git:diff:<rev>";

/**
 * Classifies one address by its prefix (`github:`, `git:…`, `transcript:`, `http(s)://`),
 * else as a local path; a bare `A..B` that is no existing path is a git range.
 */
export async function resolveAddress(address: string, ctx: ResolveContext, tools: SourceTools, session: ResolveSession): Promise<SourceRef> {
  const text = address.trim();
  if (text === "") throw invalid("source address must not be blank");
  if (text.startsWith("github:")) return githubRef(address, parseGithubShorthand(text), ctx, tools, session.ghReady);
  if (text.startsWith("git:")) return resolveGitAddress(address, text, ctx, tools);
  if (text.startsWith("transcript:")) return resolveTranscriptAddress(address, text.slice("transcript:".length).trim(), ctx, tools);
  if (isWebAddress(text)) return resolveWebAddress(address, ctx, tools, session);
  const pathRef = await resolvePathAddress(address, ctx, tools);
  if (pathRef) return pathRef;
  if (isBareRange(text)) return resolveBareRange(address, text, ctx, tools);
  if (hasOtherScheme(text)) throw invalid(`unsupported address scheme: ${address} (URLs must start with http:// or https://)`);
  throw invalid(`path not found: ${address}`);
}

/** `main..HEAD` typed bare: when it is no range either, the path reading may have been meant. */
async function resolveBareRange(address: string, text: string, ctx: ResolveContext, tools: SourceTools): Promise<SourceRef> {
  try {
    return await resolveGitRange(address, text, ctx, tools);
  } catch (error) {
    if (!isProductError(error)) throw error;
    throw invalid(`path not found: ${address} (nor a git range: ${error.message})`);
  }
}

function resolveGitAddress(address: string, text: string, ctx: ResolveContext, tools: SourceTools): Promise<SourceRef> {
  if (text.startsWith("git:range:")) return resolveGitRange(address, text.slice("git:range:".length).trim(), ctx, tools);
  if (text.startsWith("git:commit:")) return resolveGitCommit(address, text.slice("git:commit:".length).trim(), ctx, tools);
  if (text === "git:diff" || text.startsWith("git:diff:")) return resolveGitDiff(address, text.slice("git:diff".length).replace(/^:/, "").trim(), ctx, tools);
  throw invalid(`invalid git address: ${address} (expected ${GIT_FORMS})`);
}

async function resolveWebAddress(address: string, ctx: ResolveContext, tools: SourceTools, session: ResolveSession): Promise<SourceRef> {
  const url = parseWebUrl(address);
  const github = parseGithubUrl(url, address);
  return github ? githubRef(address, github, ctx, tools, session.ghReady) : webRef(address, url);
}
