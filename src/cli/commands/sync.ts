import { Option } from "@commander-js/extra-typings";
import type { App } from "../../app.js";
import { invalid } from "../../core/errors.js";
import type { HarnessKind } from "../../harnesses/catalog.js";
import type { CliContext } from "../context.js";
import type { JsonOption, RegisterCommands, WikiOption } from "../kit.js";
import { sessionTarget } from "../../sync/session.js";
import { renderSyncSummary, sessionLine, sessionSummaryJson, syncSummaryJson } from "../render/sync.js";

const APPS = ["claude", "codex"] as const;
type App_ = (typeof APPS)[number];

export const registerSyncCommands: RegisterCommands = (program, kit) => {
  const from = () => new Option("--from <apps>", "transcripts of these agents only: claude, codex or claude,codex (default both)");
  const since = () =>
    new Option("--since <when>", "take sessions never synced before back to this point: a duration (2d, 12h) or a date (2026-11-01)");
  const sync = kit.act(
    program
      .command("sync")
      .description("queue ingest runs for new activity in your Claude Code and Codex sessions")
      .addOption(kit.wiki())
      .addOption(from())
      .addOption(since())
      .addOption(new Option("--session <id-or-path>", "only this session (its id, or its transcript file): queue its new part for its wiki"))
      .addOption(kit.using())
      .addOption(kit.json()),
    runSync,
  );
  kit.act(
    sync
      .command("status")
      .description("show what the next sync would take, without queueing or changing anything")
      .addOption(kit.wiki())
      .addOption(from())
      .addOption(since())
      .addOption(kit.json()),
    syncStatus,
  );
};

interface SyncOptions extends JsonOption, WikiOption {
  from?: string;
  since?: string;
}

async function runSync(ctx: CliContext, app: App, _args: [], opts: SyncOptions & { using?: HarnessKind; session?: string }): Promise<void> {
  if (opts.session !== undefined) return syncSession(ctx, app, opts.session, opts);
  const summary = await (await app.sync()).sync({ ...request(opts, app.now()), ...(opts.using ? { using: opts.using } : {}) });
  if (opts.json) return ctx.json(syncSummaryJson(summary));
  renderSyncSummary(ctx, summary);
}

async function syncSession(ctx: CliContext, app: App, session: string, opts: SyncOptions & { using?: HarnessKind }): Promise<void> {
  const other = [opts.wiki !== undefined && "--wiki", opts.from !== undefined && "--from", opts.since !== undefined && "--since"].find(Boolean);
  if (other) throw invalid(`--session names one session: it takes no ${other}`);
  const summary = await (await app.sync()).syncSession({ target: sessionTarget(session, ctx.cwd), ...(opts.using ? { using: opts.using } : {}) });
  if (opts.json) return ctx.json(sessionSummaryJson(summary));
  ctx.write(sessionLine(summary) + "\n");
}

async function syncStatus(ctx: CliContext, app: App, _args: [], opts: SyncOptions): Promise<void> {
  const summary = await (await app.sync()).status(request(opts, app.now()));
  if (opts.json) return ctx.json(syncSummaryJson(summary));
  renderSyncSummary(ctx, summary);
}

function request(opts: SyncOptions, now: number) {
  return {
    apps: parseApps(opts.from),
    ...(opts.wiki !== undefined ? { wiki: opts.wiki } : {}),
    ...(opts.since !== undefined ? { sinceMs: parseSince(opts.since, now) } : {}),
  };
}

/** `claude,codex`: trimmed, de-duplicated, order kept; blank means both. */
export function parseApps(value: string | undefined): App_[] {
  if (value === undefined || value.trim() === "") return [...APPS];
  const apps: App_[] = [];
  for (const part of value.split(",").map((p) => p.trim())) {
    if (part === "") continue;
    const app = APPS.find((a) => a === part);
    if (app === undefined) throw invalid(`invalid --from "${value}" (expected claude, codex or claude,codex)`);
    if (!apps.includes(app)) apps.push(app);
  }
  if (apps.length === 0) throw invalid(`invalid --from "${value}" (expected claude, codex or claude,codex)`);
  return apps;
}

export function parseSince(value: string, now: number): number {
  const text = value.trim();
  const span = /^(\d+(?:\.\d+)?)\s*(m|min|h|d|w)$/i.exec(text);
  if (span) {
    const unit = { m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[span[2]!.toLowerCase() as "m"]!;
    return now - Number(span[1]) * unit;
  }
  const date = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(date)) throw invalid(`invalid --since "${value}" (expected a duration such as 2d or 12h, or a date such as 2026-11-01)`);
  if (date > now) throw invalid(`--since ${value} is in the future`);
  return date;
}
