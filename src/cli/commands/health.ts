import type { App } from "../../app.js";
import type { CliContext } from "../context.js";
import type { JsonOption, RegisterCommands, WikiOption } from "../kit.js";
import { openIndex } from "./shared.js";
import { renderHealth, renderValidation } from "../render/health.js";
import { healthFindings, validationIssues } from "../../evidence/freshness.js";

export const registerHealthCommands: RegisterCommands = (program, { act, json, wiki }) => {
  act(
    program
      .command("health")
      .description("report wiki findings (always exits 0)")
      .addOption(json())
      .addOption(wiki())
      .addHelpText("after", "\nOne section per finding, then stale pages and other-findings: whatever else `validate`\nreports (undeclared topics, invalid front matter, …), so health and validate agree.\n"),
    health,
  );
  act(
    program
      .command("validate")
      .description("check the wiki: exit 1 on errors (and on warnings with --strict)")
      .option("--strict", "warnings fail too")
      .addOption(json())
      .addOption(wiki()),
    validate,
  );
};

export async function health(ctx: CliContext, app: App, _args: [], opts: JsonOption & WikiOption): Promise<void> {
  const index = openIndex(ctx, app, opts);
  const report = await healthFindings(await app.drift(), index, await index.secretIssues(await app.privacyRules()));
  if (opts.json) return ctx.json(report);
  renderHealth(ctx, report);
}

export async function validate(ctx: CliContext, app: App, _args: [], opts: JsonOption & WikiOption & { strict?: true }): Promise<void> {
  const index = openIndex(ctx, app, opts);
  const outcome = await index.refresh();
  const issues = [...(await validationIssues(await app.drift(), index)), ...(await index.secretIssues(await app.privacyRules()))];
  const errors = issues.filter((i) => i.severity === "error").length;
  const warnings = issues.length - errors;
  const ok = errors === 0 && (opts.strict !== true || warnings === 0);
  const result = {
    repository_name: index.repository.name,
    almanac_path: index.almanacPath,
    index: outcome.result,
    issues,
    errors,
    warnings,
    strict: opts.strict === true,
    ok,
  };
  if (opts.json) ctx.json(result);
  else renderValidation(ctx, result);
  if (!ok) ctx.exitCode = 1;
}
