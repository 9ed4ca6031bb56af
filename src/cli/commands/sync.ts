import { Option } from "commander";
import type { App } from "../../app.js";
import { invalid } from "../../core/errors.js";
import type { HarnessKind } from "../../harnesses/catalog.js";
import type { CliContext, Opts } from "../context.js";
import type { RegisterCommands } from "../kit.js";
import { renderSyncSummary, syncSummaryJson } from "../render/sync.js";

const APPS = ["claude", "codex"] as const;
type App_ = (typeof APPS)[number];

export const registerSyncCommands: RegisterCommands = (program, kit) => {
  const from = () => new Option("--from <apps>", "transcripts of these agents only: claude, codex or claude,codex (default both)");
  const since = () =>
    new Option("--since <when>", "take sessions never synced before back to this point: a duration (2d, 12h) or a date (2026-11-01)");
  const sync = program
    .command("sync")
    .description("queue ingest runs for new activity in your Claude Code and Codex sessions")
    .addOption(kit.wiki())
    .addOption(from())
    .addOption(since())
    .addOption(kit.using())
    .addOption(kit.json())
    .action(kit.act(runSync));
  sync
    .command("status")
    .description("show what the next sync would take, without queueing or changing anything")
    .addOption(kit.wiki())
    .addOption(from())
    .addOption(since())
    .addOption(kit.json())
    .action(kit.act(syncStatus));
};

async function runSync(ctx: CliContext, app: App, _args: unknown[], opts: Opts): Promise<void> {
  const summary = await (await app.sync()).sync({ ...request(opts, app.now()), ...(opts.using ? { using: opts.using as HarnessKind } : {}) });
  if (opts.json) return ctx.json(syncSummaryJson(summary));
  renderSyncSummary(ctx, summary);
}

async function syncStatus(ctx: CliContext, app: App, _args: unknown[], opts: Opts): Promise<void> {
  const summary = await (await app.sync()).status(request(opts, app.now()));
  if (opts.json) return ctx.json(syncSummaryJson(summary));
  renderSyncSummary(ctx, summary);
}

function request(opts: Opts, now: number) {
  return {
    apps: parseApps(opts.from as string | undefined),
    ...(opts.wiki !== undefined ? { wiki: opts.wiki as string } : {}),
    ...(opts.since !== undefined ? { sinceMs: parseSince(opts.since as string, now) } : {}),
  };
}

/** `claude,codex`: trimmed, de-duplicated, order kept; blank means both. */
export function parseApps(value: string | undefined): App_[] {
  if (value === undefined || value.trim() === "") return [...APPS];
  const apps: App_[] = [];
  for (const part of value.split(",").map((p) => p.trim())) {
    if (part === "") continue;
    if (!(APPS as readonly string[]).includes(part)) throw invalid(`invalid --from "${value}" (expected claude, codex or claude,codex)`);
    if (!apps.includes(part as App_)) apps.push(part as App_);
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
