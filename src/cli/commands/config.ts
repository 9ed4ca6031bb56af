import type { App } from "../../app.js";
import { CONFIG_KEYS, KEY_HELP } from "../../config/key-names.js";
import type { CliContext } from "../context.js";
import type { JsonOption, RegisterCommands } from "../kit.js";
import {
  applyJson,
  changeJson,
  entryJson,
  renderApply,
  renderConfigList,
  renderSet,
  renderUnset,
  reportScheduleFailures,
} from "../render/config.js";

export async function list(ctx: CliContext, app: App, _args: [], opts: JsonOption): Promise<void> {
  const entries = (await app.configEditor()).list();
  if (opts.json) return ctx.json(entries.map(entryJson));
  renderConfigList(ctx, entries);
}

export async function get(ctx: CliContext, app: App, [key]: [string], opts: JsonOption): Promise<void> {
  const entry = (await app.configEditor()).get(key);
  if (opts.json) return ctx.json({ key: entry.key, value: entry.items ?? entry.value });
  ctx.write(`${entry.value}\n`);
}

export async function set(ctx: CliContext, app: App, [key, values]: [string, string[]], opts: JsonOption): Promise<void> {
  const change = await (await app.configEditor()).set(key, values);
  if (opts.json) ctx.json(changeJson(change));
  else renderSet(ctx, change);
  reportScheduleFailures(ctx, change.automation ? [change.automation] : [], opts.json === true);
}

export async function unset(ctx: CliContext, app: App, [key]: [string], opts: JsonOption): Promise<void> {
  const change = await (await app.configEditor()).unset(key);
  if (opts.json) ctx.json(changeJson(change));
  else renderUnset(ctx, change);
  reportScheduleFailures(ctx, change.automation ? [change.automation] : [], opts.json === true);
}

export async function apply(ctx: CliContext, app: App, _args: [], opts: JsonOption): Promise<void> {
  const report = await (await app.configEditor()).apply();
  if (opts.json) ctx.json(applyJson(report));
  else renderApply(ctx, report);
  reportScheduleFailures(ctx, report.automation, opts.json === true);
}

/** The keys and what each accepts, under the help of the commands that take a key. */
function keysHelp(): string {
  const width = Math.max(...CONFIG_KEYS.map((k) => k.length));
  return `\nKeys:\n${CONFIG_KEYS.map((k) => `  ${k.padEnd(width)}  ${KEY_HELP[k]}`).join("\n")}\n`;
}

export const registerConfigCommands: RegisterCommands = (program, { act, json }) => {
  const config = act(
    program.command("config").description("show or change settings in config.toml (alone: same as `config list`)").addOption(json()),
    list,
  );
  act(config.command("list").description("every setting with its value, and whether it is the default").addOption(json()), list);
  act(config.command("get").description("print one setting's value").argument("<key>").addOption(json()).addHelpText("after", keysHelp), get);
  act(
    config
      .command("set")
      .description("change a setting, keeping the file's comments; automation keys update the schedule at once")
      .argument("<key>")
      .argument("<value...>", "the value; a list key (privacy.*) takes one argument per entry, or a JSON array")
      .addOption(json())
      .addHelpText("after", keysHelp),
    set,
  );
  act(
    config.command("unset").description("remove a setting so its default applies").argument("<key>").addOption(json()).addHelpText("after", keysHelp),
    unset,
  );
  act(
    config.command("apply").description("check config.toml after editing it by hand and update the schedules to match").addOption(json()),
    apply,
  );
};
