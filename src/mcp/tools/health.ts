import * as z from "zod/mini";
import { healthFindings, type HealthFindings } from "../../evidence/freshness.js";
import { count, countField, wikiArgument, wikiField } from "./common.js";
import type { ToolContext } from "./context.js";
import { defineTool } from "./tool.js";

/** Examples listed per kind of finding; the counts are always complete. */
const EXAMPLES = 20;

type Row = Record<string, string>;

const KINDS: { key: keyof HealthFindings; meaning: string; line: (r: Row) => string }[] = [
  { key: "orphans", meaning: "pages without a topic", line: (r) => r.slug! },
  { key: "dead_refs", meaning: "pages citing a repository path that does not exist", line: (r) => `${r.slug} cites ${r.path}` },
  { key: "broken_links", meaning: "links to pages that do not exist", line: (r) => `${r.source_slug} -> ${r.target_slug}` },
  { key: "broken_xwiki", meaning: "links into other wikis that cannot be reached", line: (r) => `${r.source_slug} -> ${r.target_wiki}:${r.target_slug}` },
  { key: "empty_topics", meaning: "topics with no pages", line: (r) => r.slug! },
  { key: "empty_pages", meaning: "pages with no body", line: (r) => r.slug! },
  { key: "missing_source_citations", meaning: "citations of sources the page does not list", line: (r) => `${r.slug} cites ${r.source_id}` },
  { key: "unused_sources", meaning: "listed sources the page never cites", line: (r) => `${r.slug} lists ${r.source_id}` },
  { key: "duplicate_sources", meaning: "sources listed twice", line: (r) => `${r.slug} repeats ${r.source_id}` },
  { key: "stale_pages", meaning: "pages whose cited code changed since they were verified", line: (r) => `${r.slug}: ${r.reason}` },
  { key: "other_findings", meaning: "other problems validate reports (undeclared topics, invalid front matter, …)", line: (r) => `${r.page ?? r.topic ?? r.path ?? "wiki"}: ${r.message} (${r.category})` },
];

const OUTPUT = z.object({
  wiki: wikiField,
  total: countField("findings of every kind"),
  findings: z.array(
    z.object({
      kind: z.string(),
      meaning: z.string(),
      count: countField(),
      examples: z.array(z.string()).check(z.describe(`up to ${EXAMPLES} of them`)),
    }),
  ),
});
type HealthOutput = z.output<typeof OUTPUT>;

export const healthTool = (context: ToolContext) =>
  defineTool({
    name: "wiki_health",
    title: "Wiki health",
    description:
      "Summarize what is wrong with the wiki: pages without topics, citations of files that no longer exist, broken links, empty pages and topics, source problems, and stale pages (the code they cite changed since they were verified: check it before relying on them). Each kind of finding comes with its count and examples. Use it to judge how far to trust the wiki, or to find pages to fix after changing code.",
    input: z.strictObject({ wiki: wikiArgument }),
    output: OUTPUT,
    run: async (args) => {
      const wiki = await context.wikis.open(args.wiki);
      const report = await healthFindings(await context.drift(), wiki.index);
      const findings = KINDS.map(({ key, meaning, line }) => {
        const rows = report[key] as unknown as Row[];
        return { kind: key, meaning, count: rows.length, examples: rows.slice(0, EXAMPLES).map(line) };
      });
      const data: HealthOutput = { wiki: wiki.repository.name, total: findings.reduce((n, f) => n + f.count, 0), findings };
      return { data, text: healthText(data) };
    },
  });

function healthText(data: HealthOutput): string {
  if (data.total === 0) return `Wiki ${data.wiki} is healthy: no findings.`;
  const lines = [`Wiki ${data.wiki}: ${count(data.total, "finding")}.`];
  for (const f of data.findings) {
    if (f.count === 0) continue;
    lines.push(`${f.kind} (${f.count}, ${f.meaning}):`);
    for (const example of f.examples) lines.push(`- ${example}`);
    if (f.count > f.examples.length) lines.push(`- … and ${f.count - f.examples.length} more`);
  }
  return lines.join("\n");
}
