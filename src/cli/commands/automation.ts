import type { Command } from "commander";
import type { App } from "../../app.js";
import { AUTOMATION_TASKS, type AutomationTask } from "../../automation/model.js";
import { parseDuration } from "../../config/duration.js";
import { invalid } from "../../core/errors.js";
import { PREFERRED_HARNESS, type HarnessKind } from "../../harnesses/catalog.js";
import type { CliContext, Opts } from "../context.js";
import type { CommandKit, RegisterCommands } from "../kit.js";
import { renderStatuses, statusJson } from "../render/automation.js";

export const registerAutomationCommands: RegisterCommands = (program: Command, kit: CommandKit) => {
  const automation = program.command("automation").description("scheduled sync and garden: their status, and a CI workflow");
  // Without a subcommand, commander would send the help to stderr, which the CLI keeps quiet.
  automation.action(() => automation.outputHelp());
  automation
    .command("status")
    .description("show whether each task is scheduled, how often, and how its last run went")
    .argument("[tasks...]", `${AUTOMATION_TASKS.join(", ")} (default: all)`)
    .addOption(kit.json())
    .action(kit.act(status));
  automation
    .command("ci")
    .description("print a CI workflow that gardens this repository's wiki on a schedule and opens a pull request")
    .requiredOption("--provider <name>", "CI provider: github")
    .addOption(kit.using())
    .option("--every <schedule>", 'how often: a duration (24h, 6h, 30m) or a cron expression ("17 3 * * *"); default 24h')
    .addOption(kit.json())
    .action(kit.act(ci));
  program
    .command("__scheduled", { hidden: true })
    .description("run a scheduled task (started by the system scheduler)")
    .argument("<task>", AUTOMATION_TASKS.join(" or "))
    .option("--every <duration>", "skip unless the task's last run started at least this long ago")
    .action(kit.act(scheduled));
};

async function status(ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> {
  const requested = (args[0] as string[] | undefined) ?? [];
  const tasks = requested.length === 0 ? AUTOMATION_TASKS : [...new Set(requested.map(parseTask))];
  const statuses = await (await app.automation()).status(tasks);
  if (opts.json) return ctx.json({ statuses: statuses.map(statusJson) });
  renderStatuses(ctx, statuses, app.now());
}

async function ci(ctx: CliContext, _app: App, _args: unknown[], opts: Opts): Promise<void> {
  const { CI_PROVIDERS, githubGardenWorkflow } = await import("../../automation/ci-github.js");
  const provider = String(opts.provider);
  if (!(CI_PROVIDERS as readonly string[]).includes(provider)) {
    throw invalid(`unknown --provider "${provider}" (expected ${CI_PROVIDERS.join(", ")})`);
  }
  const workflow = githubGardenWorkflow((opts.using as HarnessKind | undefined) ?? PREFERRED_HARNESS, opts.every as string | undefined);
  if (opts.json) {
    return ctx.json({ provider, path: workflow.path, harness: workflow.harness, schedule: workflow.schedule, secret: workflow.secret, workflow: workflow.text });
  }
  ctx.write(workflow.text);
  ctx.writeErr(
    `codealmanac: save this as ${workflow.path} and add the repository secret ${workflow.secret} (Settings → Secrets and variables → Actions)\n`,
  );
}

async function scheduled(ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> {
  const task = parseTask(args[0] as string);
  const everyMs = opts.every === undefined ? null : parseEvery(opts.every as string);
  const { performScheduledRun } = await import("../../automation/scheduled.js");
  const outcome = await performScheduledRun({
    paths: app.paths,
    now: app.now,
    task,
    everyMs,
    run: () => app.runScheduledTask(task),
  });
  ctx.exitCode = outcome.exitCode;
}

function parseTask(value: string): AutomationTask {
  const task = value.trim().toLowerCase();
  if (!(AUTOMATION_TASKS as readonly string[]).includes(task)) {
    throw invalid(`unknown task "${value}" (expected ${AUTOMATION_TASKS.join(", ")})`);
  }
  return task as AutomationTask;
}

function parseEvery(value: string): number {
  const ms = parseDuration(value);
  if (ms === null || ms <= 0) throw invalid(`invalid --every "${value}": expected a duration such as 5h or 30m`);
  return ms;
}
