import type { CliContext } from "../context.js";
import type { HealthFindings } from "../../evidence/freshness.js";
import type { ValidationIssue } from "../../index/views/validate.js";
import type { RefreshResult } from "../../index/service.js";
import { labelled } from "./table.js";

type Row = Record<string, string>;

const SECTIONS: { key: Exclude<keyof HealthFindings, "other_findings">; name: string; line: (r: Row, c: CliContext) => string }[] = [
  { key: "orphans", name: "orphans", line: (r, c) => c.out.blue(r.slug!) },
  { key: "dead_refs", name: "dead-refs", line: (r, c) => `${c.out.blue(r.slug!)}  references ${r.path} ${c.out.dim("(missing)")}` },
  {
    key: "broken_links",
    name: "broken-links",
    line: (r, c) => `${c.out.blue(r.source_slug!)} -> ${r.target_slug} ${c.out.dim("(target does not exist)")}`,
  },
  {
    key: "broken_xwiki",
    name: "broken-xwiki",
    line: (r, c) => `${c.out.blue(r.source_slug!)} -> ${r.target_wiki}:${r.target_slug} ${c.out.dim("(wiki unregistered or unreachable)")}`,
  },
  { key: "empty_topics", name: "empty-topics", line: (r, c) => c.out.blue(r.slug!) },
  { key: "empty_pages", name: "empty-pages", line: (r, c) => c.out.blue(r.slug!) },
  {
    key: "missing_source_citations",
    name: "missing-source-citations",
    line: (r, c) => `${c.out.blue(r.slug!)} cites ${r.source_id} ${c.out.dim("(missing source)")}`,
  },
  { key: "unused_sources", name: "unused-sources", line: (r, c) => `${c.out.blue(r.slug!)} lists ${r.source_id} ${c.out.dim("(not cited)")}` },
  { key: "duplicate_sources", name: "duplicate-sources", line: (r, c) => `${c.out.blue(r.slug!)} repeats ${r.source_id}` },
  { key: "stale_pages", name: "stale-pages", line: (r, c) => `${c.out.blue(r.slug!)}  ${r.reason}` },
];

export function renderHealth(ctx: CliContext, report: HealthFindings): void {
  const s = ctx.out;
  const blocks = SECTIONS.map(({ key, name, line }) => {
    const rows = report[key] as unknown as Row[];
    if (rows.length === 0) return `${s.bold(name)} ${s.green("(0): ok")}`;
    return [`${s.bold(name)} ${s.red(`(${rows.length})`)}:`, ...rows.map((r) => `  ${line(r, ctx)}`)].join("\n");
  });
  const other = report.other_findings;
  blocks.push(
    other.length === 0
      ? `${s.bold("other-findings")} ${s.green("(0): ok")}`
      : [`${s.bold("other-findings")} ${s.red(`(${other.length})`)}:`, ...other.map((i) => `  ${s.blue(i.page ?? i.topic ?? i.path ?? "wiki")}  ${i.message} ${s.dim(`(${i.category})`)}`)].join("\n"),
  );
  ctx.write(blocks.join("\n\n") + "\n");
}

export interface ValidationResult {
  repository_name: string;
  almanac_path: string;
  index: RefreshResult | null;
  issues: ValidationIssue[];
  errors: number;
  warnings: number;
  strict: boolean;
  ok: boolean;
}

export function renderValidation(ctx: CliContext, result: ValidationResult): void {
  const s = ctx.out;
  const out = [
    `${s.bold("validate")}: ${result.ok ? s.green("ok") : s.red("failed")}`,
    labelled("wiki", result.repository_name, 7, s),
    labelled("path", result.almanac_path, 7, s),
  ];
  if (result.index) out.push(labelled("index", `${result.index.pages_indexed} pages`, 7, s));
  const show = (severity: "error" | "warning", title: string) => {
    const items = result.issues.filter((i) => i.severity === severity);
    if (items.length === 0) return;
    out.push(`${title} (${items.length}):`);
    for (const issue of items) {
      const where = issue.page ?? issue.topic ?? issue.path;
      out.push(`  ${where ? s.blue(where) + " " : ""}${issue.message} ${s.dim(`(${issue.category})`)}`);
    }
  };
  show("error", s.red("errors"));
  show("warning", s.yellow("warnings"));
  ctx.write(out.join("\n") + "\n");
}
