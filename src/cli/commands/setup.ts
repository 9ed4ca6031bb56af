import { Option, type Command } from "@commander-js/extra-typings";
import type { App } from "../../app.js";
import { conflict, invalid } from "../../core/errors.js";
import { parseDuration } from "../../config/duration.js";
import { durationProblem, type DurationKey } from "../../config/ranges.js";
import { HARNESS_KINDS, type HarnessKind } from "../../harnesses/catalog.js";
import type { ScheduleChoice, SetupChoices, TargetChoice } from "../../setup/request.js";
import type { CliContext } from "../context.js";
import type { CommandKit, JsonOption, RegisterCommands, WikiOption } from "../kit.js";

export const registerSetupCommands: RegisterCommands = (program, kit) => {
  registerSetup(program, kit);
  kit.act(
    program
      .command("doctor")
      .description("check the installation, the agent CLIs runs use, the MCP server registrations, the schedules and the current wiki (exit 1 when a check fails)")
      .addOption(kit.wiki())
      .addOption(kit.json()),
    doctor,
  );
  kit.act(
    program
      .command("uninstall")
      .description("remove the instruction blocks, the MCP server registrations, the SessionEnd hooks, the schedules and the state directory (wikis in repositories stay)")
      .option("--yes", "do not ask; cancel queued and running jobs first")
      .addOption(kit.json()),
    uninstall,
  );
};

function registerSetup(program: Command, kit: CommandKit): void {
  const setupCommand = program
    .command("setup")
    .description("tell Claude Code and Codex about the wiki, save settings, sync sessions when they end and schedule sync and garden (exit 1 when a schedule cannot be installed; the rest is saved)")
    .option("--yes", "use the defaults and the flags given; ask nothing")
    .addOption(new Option("--target <which>", "instruction files to install").choices(["all", "claude", "codex"]))
    .option("--skip-instructions", "leave the agents' instruction files alone")
    .addOption(new Option("--using <harness>", "the agent runs use by default (saved as harness.default)").choices(HARNESS_KINDS))
    // The Python CodeAlmanac's setup flags, so its instructions and scripts keep working.
    .addOption(new Option("--runner <harness>", "the Python CodeAlmanac's name for --using").choices(HARNESS_KINDS).conflicts("using").hideHelp())
    .addOption(new Option("--no-telemetry", "accepted for the Python CodeAlmanac's scripts; we send no telemetry").hideHelp())
    .addOption(new Option("--no-auto-update", "accepted for the Python CodeAlmanac's scripts; we never update ourselves").hideHelp())
    .option("--no-auto-commit", "runs leave their wiki changes uncommitted")
    .addOption(new Option("--sync-every <duration>", "sync interval, such as 5h").conflicts("syncOff"))
    .option("--sync-off", "do not schedule sync")
    .addOption(new Option("--garden-every <duration>", "garden interval, such as 24h").conflicts("gardenOff"))
    .option("--garden-off", "do not schedule garden")
    .option("--skip-schedules", "save the settings but leave the operating system's scheduler alone")
    .option("--no-mcp", "do not register the codealmanac MCP server with Claude Code and Codex")
    .option("--skip-hooks", "do not install the SessionEnd hooks that sync a session when it ends")
    .addOption(kit.json());
  kit.act(setupCommand, setup);
}

/** Whether to ask: `--yes` and `--json` say no. */
interface AskOptions extends JsonOption {
  yes?: true;
}

interface SetupOptions extends AskOptions {
  target?: TargetChoice;
  skipInstructions?: true;
  using?: HarnessKind;
  runner?: HarnessKind;
  telemetry: boolean;
  autoUpdate: boolean;
  autoCommit: boolean;
  syncEvery?: string;
  syncOff?: true;
  gardenEvery?: string;
  gardenOff?: true;
  skipSchedules?: true;
  mcp: boolean;
  skipHooks?: true;
}

/** Prompts only for a person at a terminal; anything else (pipes, CI, agents) gets the defaults. */
function canAsk(opts: AskOptions): boolean {
  return !opts.yes && !opts.json && process.stdin.isTTY === true && process.stdout.isTTY === true;
}

export async function setup(ctx: CliContext, app: App, _args: [], opts: SetupOptions): Promise<void> {
  noteIgnoredFlags(ctx, opts);
  const choices = setupChoices(opts);
  const ask = canAsk(opts);
  // At a terminal the checks below take seconds (each agent CLI is started): say so first.
  const wizard = ask ? await import("../render/setup-wizard.js") : null;
  const checking = await wizard?.startChecks();
  const service = await app.setup();
  let request = await service.request(choices);
  if (wizard && checking) {
    const probes = await service.harnesses();
    checking.done(probes);
    const asked = await wizard.askSetup({ choices, request, probes });
    if (!asked) {
      ctx.writeErr("setup cancelled; nothing was changed\n");
      ctx.exitCode = 130;
      return;
    }
    request = asked;
    const leftovers = service.pythonLeftovers();
    if (leftovers.length > 0) {
      request = { ...request, removePythonLeftovers: await wizard.confirmPythonCleanup(service.describePythonLeftovers(leftovers)) };
    }
  } else if (!opts.yes && !opts.json) {
    ctx.writeErr(
      "codealmanac: not a terminal, so setup asks nothing and uses the defaults and flags given (--yes says so and hides this note)\n",
    );
  }
  const report = await service.setup(request);
  const [{ renderSetup, setupJson, scheduleErrors }, { reportScheduleFailures }] = await Promise.all([import("../render/setup.js"), import("../render/config.js")]);
  if (opts.json) ctx.json(setupJson(report));
  else renderSetup(ctx, report);
  // Everything else is saved by now; a schedule that failed makes it exit 1, as `config set` does.
  reportScheduleFailures(ctx, scheduleErrors(report), opts.json === true);
}

/** The Python CodeAlmanac's flags that mean nothing here: accepted, with one line saying so. */
function noteIgnoredFlags(ctx: CliContext, opts: SetupOptions): void {
  if (!opts.telemetry) ctx.writeErr("codealmanac: --no-telemetry changes nothing: this CodeAlmanac sends no telemetry\n");
  if (!opts.autoUpdate) ctx.writeErr("codealmanac: --no-auto-update changes nothing: this CodeAlmanac never updates itself (update it with npm)\n");
}

function setupChoices(opts: SetupOptions): SetupChoices {
  return {
    target: opts.target ?? null,
    skipInstructions: opts.skipInstructions === true,
    using: opts.using ?? opts.runner ?? null,
    autoCommit: opts.autoCommit === false ? false : null,
    schedules: {
      sync: scheduleChoice(opts.syncOff, opts.syncEvery, "--sync-every", "automation.sync.every"),
      garden: scheduleChoice(opts.gardenOff, opts.gardenEvery, "--garden-every", "automation.garden.every"),
    },
    skipSchedules: opts.skipSchedules === true,
    mcp: opts.mcp !== false,
    skipHooks: opts.skipHooks === true,
    removePythonLeftovers: opts.yes === true,
  };
}

function scheduleChoice(off: true | undefined, every: string | undefined, flag: string, key: DurationKey): ScheduleChoice {
  if (every === undefined) return { off: off === true, everyMs: null };
  const problem = durationProblem(key, every);
  if (problem) throw invalid(`invalid ${flag} "${every}": ${problem}`);
  return { off: false, everyMs: parseDuration(every)! };
}

export async function doctor(ctx: CliContext, app: App, _args: [], opts: JsonOption & WikiOption): Promise<void> {
  const report = await (await app.setup()).doctor(ctx.cwd, opts.wiki);
  const { renderDoctor } = await import("../render/setup-doctor.js");
  if (opts.json) ctx.json({ ok: report.ok, checks: report.checks });
  else renderDoctor(ctx, report);
  if (!report.ok) ctx.exitCode = 1;
}

export async function uninstall(ctx: CliContext, app: App, _args: [], opts: AskOptions): Promise<void> {
  const service = await app.setup();
  const plan = await service.planUninstall();
  const render = await import("../render/setup-uninstall.js");
  if (service.isNothingToRemove(plan)) {
    if (opts.json) return ctx.json(render.nothingJson());
    return render.renderNothing(ctx);
  }
  const yes = opts.yes === true;
  const ask = canAsk(opts);
  const refusal = service.uninstallRefusal(plan, { yes, canConfirm: ask });
  if (refusal) throw conflict(refusal);
  if (!yes && ask) {
    const { confirmUninstall } = await import("../render/setup-wizard.js");
    if (!(await confirmUninstall(service.describePlan(plan)))) {
      ctx.writeErr("uninstall cancelled; nothing was removed\n");
      ctx.exitCode = 1;
      return;
    }
  }
  const report = await service.uninstall(plan, { cancelActive: yes });
  if (opts.json) return ctx.json(render.uninstallJson(report));
  render.renderUninstall(ctx, report);
}
