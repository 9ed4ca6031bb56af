import { Option } from "@commander-js/extra-typings";
import type { App } from "../../app.js";
import { AUTOMATION_TASKS, type AutomationTask } from "../../automation/model.js";
import { parseDuration } from "../../config/duration.js";
import { invalid } from "../../core/errors.js";
import { PREFERRED_HARNESS, type HarnessKind } from "../../harnesses/catalog.js";
import type { DriftCheck } from "../../automation/ci-github.js";
import type { CliContext } from "../context.js";
import type { JsonOption, RegisterCommands } from "../kit.js";
import { renderStatuses, statusJson } from "../render/automation.js";

export const registerAutomationCommands: RegisterCommands = (program, kit) => {
  const automation = program.command("automation").description("scheduled sync and garden: their status, and a CI workflow");
  // Without a subcommand, commander would send the help to stderr, which the CLI keeps quiet.
  automation.action(() => automation.outputHelp());
  kit.act(
    automation
      .command("status")
      .description("show whether each task is scheduled, how often, and how its last run went")
      .argument("[tasks...]", `${AUTOMATION_TASKS.join(", ")} (default: all)`)
      .addOption(kit.json()),
    status,
  );
  kit.act(
    automation
      .command("ci")
      .description("print a CI workflow that gardens this repository's wiki on a schedule and opens a pull request, or one that checks pull requests for drift")
      .requiredOption("--provider <name>", "CI provider: github")
      .addOption(new Option("--workflow <name>", "which workflow to print: the scheduled garden, or the pull-request drift check").choices(WORKFLOWS).default("garden" as const))
      .addOption(kit.using())
      .option("--every <schedule>", 'how often: a duration (24h, 6h, 30m) or a cron expression ("17 3 * * *"); default 24h')
      .addOption(
        new Option("--drift-check <mode>", "the pull-request drift check: report in the job summary, also fail on stale pages, or none").choices(DRIFT_CHECK_MODES).default("report" as const),
      )
      .addOption(kit.json()),
    ci,
  );
  kit.act(
    program
      .command("__scheduled", { hidden: true })
      .description("run a scheduled task (started by the system scheduler)")
      .argument("<task>", AUTOMATION_TASKS.join(" or "))
      .option("--every <duration>", "skip unless the task's last run started at least this long ago"),
    scheduled,
  );
};

async function status(ctx: CliContext, app: App, [requested]: [string[]], opts: JsonOption): Promise<void> {
  const tasks = requested.length === 0 ? AUTOMATION_TASKS : [...new Set(requested.map(parseTask))];
  const statuses = await (await app.automation()).status(tasks);
  if (opts.json) return ctx.json({ statuses: statuses.map(statusJson) });
  renderStatuses(ctx, statuses, app.now());
}

const WORKFLOWS = ["garden", "drift"] as const;
// Listed here, not imported: the CI module loads only when `ci` runs.
const DRIFT_CHECK_MODES = ["report", "fail", "off"] as const satisfies readonly DriftCheck[];

async function ci(
  ctx: CliContext,
  _app: App,
  _args: [],
  opts: JsonOption & { provider: string; workflow: (typeof WORKFLOWS)[number]; using?: HarnessKind; every?: string; driftCheck: DriftCheck },
): Promise<void> {
  const { CI_PROVIDERS, githubDriftWorkflow, githubGardenWorkflow } = await import("../../automation/ci-github.js");
  const provider = CI_PROVIDERS.find((p) => p === opts.provider);
  if (provider === undefined) throw invalid(`unknown --provider "${opts.provider}" (expected ${CI_PROVIDERS.join(", ")})`);
  const workflow = githubGardenWorkflow(opts.using ?? PREFERRED_HARNESS, opts.every);
  const drift = opts.driftCheck === "off" ? null : githubDriftWorkflow(opts.driftCheck);
  if (opts.json) {
    return ctx.json({
      provider,
      path: workflow.path,
      harness: workflow.harness,
      schedule: workflow.schedule,
      secret: workflow.secret,
      workflow: workflow.text,
      drift_check: drift === null ? null : { path: drift.path, fail_on: drift.failOn, workflow: drift.text },
    });
  }
  if (opts.workflow === "drift") {
    if (drift === null) throw invalid("--workflow drift needs a drift check; --drift-check off leaves none to print");
    ctx.write(drift.text);
    return ctx.writeErr(`codealmanac: save this as ${drift.path}; it needs no secret\n`);
  }
  ctx.write(workflow.text);
  ctx.writeErr(
    `codealmanac: save this as ${workflow.path} and add the repository secret ${workflow.secret} (Settings → Secrets and variables → Actions)\n`,
  );
}

async function scheduled(ctx: CliContext, app: App, [name]: [string], opts: { every?: string }): Promise<void> {
  const task = parseTask(name);
  const everyMs = opts.every === undefined ? null : parseEvery(opts.every);
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
  const task = AUTOMATION_TASKS.find((t) => t === value.trim().toLowerCase());
  if (task === undefined) throw invalid(`unknown task "${value}" (expected ${AUTOMATION_TASKS.join(", ")})`);
  return task;
}

function parseEvery(value: string): number {
  const ms = parseDuration(value);
  if (ms === null || ms <= 0) throw invalid(`invalid --every "${value}": expected a duration such as 5h or 30m`);
  return ms;
}
