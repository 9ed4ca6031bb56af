import { Option } from "@commander-js/extra-typings";
import type { App } from "../../app.js";
import { AUTOMATION_TASKS, type AutomationTask } from "../../automation/model.js";
import { parseDuration } from "../../config/duration.js";
import { invalid } from "../../core/errors.js";
import { HARNESSES, HARNESS_KINDS, PREFERRED_HARNESS, type HarnessKind } from "../../harnesses/catalog.js";
import { ciNodeMajor, harnessSecret } from "../../automation/ci-steps.js";
import type { CiPlan } from "../../automation/ci.js";
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
      .description("print a CI file that gardens this repository's wiki on a schedule and proposes the changes for review, or a pull-request drift check")
      .requiredOption("--provider <name>", "CI provider: github (a GitHub Actions workflow) or gitlab (a .gitlab-ci.yml job)")
      .addOption(new Option("--workflow <name>", "which file to print: the scheduled garden, or the pull-request drift check (github)").choices(WORKFLOWS).default("garden" as const))
      .addOption(kit.using())
      .option("--every <schedule>", 'how often: an interval cron runs evenly (5m–30m dividing an hour, 1h–12h dividing a day, 1d, 7d) or a cron expression ("17 3 * * *"); default 1d')
      .addOption(
        new Option("--drift-check <mode>", "the pull-request drift check: report in the job summary, also fail on stale pages, or none").choices(DRIFT_CHECK_MODES).default("report" as const),
      )
      .addOption(kit.json())
      .addHelpText("after", ciHelp),
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

/** The help's text, built when asked for, from the harness catalog's Node versions and keys. */
const agentSecrets = (): string => HARNESS_KINDS.map(harnessSecret).join(" or ");
const ciHelp = (): string => `
The file goes to stdout and what to set up beside it to stderr; nothing is written.
Both providers install this version of CodeAlmanac and the agent's CLI with the Node.js
they need (${HARNESS_KINDS.map((k) => `${ciNodeMajor(k)} for ${HARNESSES[k].label}`).join(", ")}), garden with a temporary state root (the
stale pages when drift finds some, else the whole wiki) and propose the changes under
almanac/ on the branch codealmanac/garden.

  github  .github/workflows/codealmanac-garden.yml. Needs the repository secret
          ${agentSecrets()}, and the repository must let Actions
          create pull requests: Settings → Actions → General → "Allow GitHub Actions
          to create and approve pull requests". The pull request is opened with gh
          and the job's token (no third-party action). --workflow drift prints the
          pull-request check instead (.github/workflows/codealmanac-drift.yml).
  gitlab  .gitlab-ci.yml: a job for scheduled pipelines that opens a merge request
          through GitLab's API. Needs the CI/CD variables
          ${agentSecrets()}, and CODEALMANAC_GITLAB_TOKEN: a project
          access token with the Developer role and the api and write_repository
          scopes. GitLab keeps schedules outside the file: create one in Build →
          Pipeline schedules (CI/CD → Schedules) with the printed interval
          pattern, timezone UTC.

--every: cron has no "every N days", so an interval it cannot run evenly (5h, 2d)
is refused with the nearest ones it can (4h, 6h); give a cron expression for any
other schedule. Durations run at minute 17 and 03:00 UTC, weekly on Mondays.

Examples:
  ca automation ci --provider github --using claude
  ca automation ci --provider gitlab --every 12h
  ca automation ci --provider github --workflow drift --drift-check fail
`;
// Listed here, not imported: the CI module loads only when `ci` runs.
const DRIFT_CHECK_MODES = ["report", "fail", "off"] as const satisfies readonly DriftCheck[];

async function ci(
  ctx: CliContext,
  _app: App,
  _args: [],
  opts: JsonOption & { provider: string; workflow: (typeof WORKFLOWS)[number]; using?: HarnessKind; every?: string; driftCheck: DriftCheck },
): Promise<void> {
  const { ciPlan } = await import("../../automation/ci.js");
  const plan = ciPlan({ provider: opts.provider, harness: opts.using ?? PREFERRED_HARNESS, every: opts.every, driftCheck: opts.driftCheck });
  if (opts.json) return ctx.json(ciJson(plan));
  if (opts.workflow === "drift") {
    if (plan.provider !== "github") throw invalid(`--workflow drift needs --provider github; ${plan.provider} has no drift check`);
    if (plan.drift === null) throw invalid("--workflow drift needs a drift check; --drift-check off leaves none to print");
    ctx.write(plan.drift.text);
    return writeNotes(ctx, plan.drift.notes);
  }
  ctx.write(plan.text);
  writeNotes(ctx, plan.notes);
}

function ciJson(plan: CiPlan) {
  return {
    provider: plan.provider,
    path: plan.path,
    harness: plan.harness,
    schedule: plan.schedule,
    secret: plan.secret,
    token_variable: plan.tokenVariable,
    workflow: plan.text,
    notes: plan.notes,
    drift_check: plan.drift === null ? null : { path: plan.drift.path, fail_on: plan.drift.failOn, workflow: plan.drift.text },
  };
}

function writeNotes(ctx: CliContext, notes: string[]): void {
  for (const note of notes) ctx.writeErr(`codealmanac: ${note}\n`);
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
