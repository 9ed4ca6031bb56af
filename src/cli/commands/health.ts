import type { App } from "../../app.js";
import type { CliContext } from "../context.js";
import type { Opts } from "../context.js";
import { openIndex } from "./shared.js";
import { renderHealth, renderValidation } from "../render/health.js";

export async function health(ctx: CliContext, app: App, _args: unknown[], opts: Opts): Promise<void> {
  const report = await openIndex(ctx, app, opts).health();
  if (opts.json) return ctx.json(report);
  renderHealth(ctx, report);
}

export async function validate(ctx: CliContext, app: App, _args: unknown[], opts: Opts): Promise<void> {
  const index = openIndex(ctx, app, opts);
  const outcome = await index.refresh();
  const issues = await index.issues();
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
