import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { cutText, fairShares } from "./budget.js";
import { sourceTools, type PrepareContext, type ResolveContext, type SourcesDeps, type SourceTools } from "./context.js";
import { SourcePreparationError, SourceUnavailable } from "./errors.js";
import { SOURCE_HINTS } from "./hints.js";
import type { SourceBrief, SourceKind, SourceRef } from "./model.js";
import { prepareFile } from "./prepare/file.js";
import { prepareFolder } from "./prepare/folder.js";
import { prepareGit } from "./prepare/git.js";
import { prepareGithub } from "./prepare/github.js";
import type { Material, Preparer } from "./prepare/material.js";
import { prepareTranscript } from "./prepare/transcript.js";
import { prepareUrl } from "./prepare/url.js";
import { redactMaterial } from "./redact.js";
import { resolveAddress } from "./resolve/address.js";
import { checkGhReady } from "./resolve/github.js";
import { relativeInside, realPathOr } from "./resolve/paths-common.js";
import { formatCount } from "./text.js";

export type { PrepareContext, ResolveContext, SourcesDeps } from "./context.js";
export { SourcePreparationError } from "./errors.js";
export { parseSourceRefs } from "./schema.js";

const PREPARERS: Record<SourceKind, Preparer> = {
  file: prepareFile,
  folder: prepareFolder,
  git_range: prepareGit,
  git_commit: prepareGit,
  git_diff: prepareGit,
  github_pr: prepareGithub,
  github_issue: prepareGithub,
  url: prepareUrl,
  transcript: prepareTranscript,
};

/** Sources prepared at once: enough to overlap network waits, few enough to stay polite. */
const PREPARE_CONCURRENCY = 4;

/**
 * Ingest sources: `resolve` checks and pins addresses when a run is queued, `prepare`
 * turns the stored refs into prompt material when the run starts.
 */
export class SourcesService {
  private readonly tools: SourceTools;

  constructor(private readonly deps: SourcesDeps) {
    this.tools = sourceTools(deps);
  }

  /** Queue time: classify and validate every address, without touching the network. */
  async resolve(inputs: string[], ctx: ResolveContext): Promise<SourceRef[]> {
    let ghReady: Promise<void> | undefined;
    const session = { ghReady: () => (ghReady ??= checkGhReady(ctx, this.tools)) };
    const refs: SourceRef[] = [];
    // One at a time, so the error reported is the first bad address as typed.
    for (const input of inputs) refs.push(await resolveAddress(input, ctx, this.tools, session));
    return refs;
  }

  /** Run time: every ref becomes a brief; together they stay within `budgetChars`. */
  async prepare(refs: SourceRef[], context: PrepareContext): Promise<SourceBrief[]> {
    refuseMaterialInsideRepository(context);
    const privacy = (await this.deps.privacyRules?.()) ?? {};
    const ctx = { ...context, privacy };
    // Redacted before anything is measured, cut or written: the material file holds no secret either.
    const materials = await Promise.all((await this.prepareAll(refs, ctx)).map((material) => redactMaterial(material, privacy)));
    const shares = fairShares(
      materials.map((material) => material.text.length),
      ctx.budgetChars,
    );
    return Promise.all(materials.map((material, index) => toBrief(refs[index]!, material, shares[index]!, index, ctx)));
  }

  private async prepareAll(refs: SourceRef[], ctx: PrepareContext): Promise<Material[]> {
    const outcomes = await mapLimited(refs, PREPARE_CONCURRENCY, async (ref) => {
      try {
        return { ok: true as const, material: await PREPARERS[ref.kind](ref, ctx, this.tools) };
      } catch (error) {
        return { ok: false as const, error: preparationError(ref, error) };
      }
    });
    const failed = outcomes.find((outcome) => !outcome.ok);
    if (failed && !failed.ok) throw failed.error;
    return outcomes.map((outcome) => (outcome.ok ? outcome.material : undefined)!);
  }
}

function preparationError(ref: SourceRef, error: unknown): SourcePreparationError {
  if (error instanceof SourceUnavailable) return new SourcePreparationError(ref.address, error.message);
  if ((error as Error)?.name === "AbortError") return new SourcePreparationError(ref.address, "cancelled");
  const message = error instanceof Error ? error.message : String(error);
  return new SourcePreparationError(ref.address, message.split("\n")[0] || "unknown error");
}

/** Material files belong to the run's folder in the state root; the repository is the user's. */
function refuseMaterialInsideRepository(ctx: PrepareContext): void {
  if (relativeInside(realPathOr(ctx.repositoryRoot), realPathOr(resolve(ctx.workDir))) !== null) {
    throw new Error(`the run folder ${ctx.workDir} lies inside the repository ${ctx.repositoryRoot}; source material is never written there`);
  }
}

async function toBrief(ref: SourceRef, material: Material, share: number, index: number, ctx: PrepareContext): Promise<SourceBrief> {
  const kind = material.kind ?? ref.kind;
  const brief: SourceBrief = {
    address: ref.address,
    kind,
    title: material.title ?? ref.title,
    hint: SOURCE_HINTS[kind],
    content: material.text,
    totalChars: material.text.length,
    truncated: false,
    notes: [...material.notes],
  };
  if (material.text.length <= share) return brief;
  const materialPath = await writeMaterial(ref, material, kind, index, ctx);
  brief.content = cutText(material.text, share, material.cut, materialPath);
  brief.truncated = true;
  brief.materialPath = materialPath;
  const kept = material.cut === "ends" ? "its beginning and end are shown" : "its beginning is shown";
  brief.notes.push(
    `Cut to ${formatCount(brief.content.length)} of ${formatCount(material.text.length)} characters to fit the prompt (${kept}); the whole material is in ${materialPath}.`,
  );
  return brief;
}

async function writeMaterial(ref: SourceRef, material: Material, kind: SourceKind, index: number, ctx: PrepareContext): Promise<string> {
  const folder = join(ctx.workDir, "sources");
  const path = join(folder, `${String(index + 1).padStart(2, "0")}-${kind}.md`);
  try {
    await mkdir(folder, { recursive: true });
    await writeFile(path, material.text, "utf8");
  } catch (error) {
    throw new SourcePreparationError(ref.address, `cannot write the material file ${path}: ${(error as Error).message}`);
  }
  return path;
}

/** Like Promise.all over `items`, with at most `limit` calls in flight; results keep input order. */
async function mapLimited<T, R>(items: T[], limit: number, call: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await call(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
