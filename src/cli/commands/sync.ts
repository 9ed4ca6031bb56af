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
    new Option("--since <when>", "take sessions never synced before back to this point: a duration (12h, 2d, 3w, 6mo, 2y) or a date (2026-11-01)");
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

const DAY = 86_400_000;
/** `m` is minutes, as everywhere else; a month is 30 days and a year 365, which is all a look-back window needs. */
const SINCE_UNITS: Record<string, number> = {
  m: 60_000, min: 60_000, mins: 60_000, minute: 60_000, minutes: 60_000,
  h: 3_600_000, hour: 3_600_000, hours: 3_600_000,
  d: DAY, day: DAY, days: DAY,
  w: 7 * DAY, week: 7 * DAY, weeks: 7 * DAY,
  mo: 30 * DAY, month: 30 * DAY, months: 30 * DAY,
  y: 365 * DAY, year: 365 * DAY, years: 365 * DAY,
};

export function parseSince(value: string, now: number): number {
  const text = value.trim();
  const span = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i.exec(text);
  const unit = span ? SINCE_UNITS[span[2]!.toLowerCase()] : undefined;
  if (span && unit !== undefined) return now - Number(span[1]) * unit;
  const date = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(date)) throw invalid(`invalid --since "${value}" (expected a duration such as 12h, 2d, 3w, 6mo or 2y, or a date such as 2026-11-01)`);
  if (date > now) throw invalid(`--since ${value} is in the future`);
  return date;
}
