import { Option } from "@commander-js/extra-typings";
import type { App } from "../../app.js";
import { invalid } from "../../core/errors.js";
import type { CliContext } from "../context.js";
import type { JsonOption, RegisterCommands, WikiOption } from "../kit.js";
import { openIndex } from "./shared.js";
import { renderDrift, renderDriftMarkdown, renderFix } from "../render/drift.js";
import { driftJson } from "../../evidence/json.js";

const FAIL_ON = ["stale", "moved"] as const;

export const registerDriftCommands: RegisterCommands = (program, { act, json, wiki }) => {
  act(
    program
      .command("drift")
      .description("list pages whose cited code changed since they were verified")
      .argument("[pages...]", "only these pages (slugs)")
      .option("--all", "list fresh pages too")
      .option("--ref <ref>", "compare with this commit instead of the working tree")
      .option("--base <ref>", "pull-request mode: only evidence changed since the merge base of <ref> and HEAD")
      .option("--fix", "re-anchor moved evidence in place (new lines, new path, new stamp); changed evidence is never touched")
      .addOption(new Option("--fail-on <status>", "exit 1 when a page is stale (or, with moved, stale or moved)").choices(FAIL_ON))
      .option("--markdown", "print the list as Markdown (for a CI job summary)")
      .addOption(json())
      .addOption(wiki()),
    drift,
  );
};

type DriftOptions = JsonOption & WikiOption & { all?: true; ref?: string; base?: string; fix?: true; failOn?: (typeof FAIL_ON)[number]; markdown?: true };

export async function drift(ctx: CliContext, app: App, [pages]: [string[]], opts: DriftOptions): Promise<void> {
  if (opts.ref !== undefined && opts.base !== undefined) throw invalid("--ref and --base cannot be combined: --base compares HEAD");
  if (opts.fix && (opts.ref !== undefined || opts.base !== undefined)) throw invalid("--fix re-anchors the working tree: it cannot be combined with --ref or --base");
  if (opts.json && opts.markdown) throw invalid("--json and --markdown cannot be combined");
  const index = openIndex(ctx, app, opts);
  if (opts.fix) {
    const fixed = await (await app.drift()).fix(index, pages);
    if (opts.json) return ctx.json(fixed);
    return renderFix(ctx, fixed);
  }
  const report = await (await app.drift()).report(index, { slugs: pages, ...(opts.ref !== undefined ? { ref: opts.ref } : {}), ...(opts.base !== undefined ? { base: opts.base } : {}) });
  if (opts.json) ctx.json(driftJson(report, { all: opts.all === true }));
  else if (opts.markdown) renderDriftMarkdown(ctx, report, { all: opts.all === true, ...(opts.base !== undefined ? { base: opts.base } : {}) });
  else renderDrift(ctx, report, { all: opts.all === true });
  const failing = opts.failOn === "moved" ? ["stale", "moved"] : opts.failOn === "stale" ? ["stale"] : [];
  if (report.pages.some((page) => failing.includes(page.status))) ctx.exitCode = 1;
}
