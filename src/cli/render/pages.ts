import type { CliContext } from "../context.js";
import type { SearchHit } from "../../index/views/search.js";
import type { PageView } from "../../index/views/pages.js";
import { leadOf, truncationOf } from "../../index/views/pages.js";
import { labelled } from "./table.js";
import { EM_DASH } from "./format.js";
import type { PageFreshness } from "../../evidence/freshness.js";

export type PageViewFlag = "body" | "meta" | "lead" | "links" | "backlinks" | "files" | "topics";

export function renderSearch(
  ctx: CliContext,
  hits: SearchHit[],
  options: { slugsOnly: boolean; total: number; explicitLimit: boolean },
): void {
  const s = ctx.out;
  if (hits.length === 0) {
    ctx.writeErr("# 0 results\n");
    return;
  }
  const lines: string[] = [];
  for (const hit of hits) {
    lines.push(s.blue(hit.slug));
    if (options.slugsOnly) continue;
    if (hit.summary) lines.push(`  ${hit.summary.trim()}`);
    if (hit.matched_heading && hit.matched_heading !== hit.title) lines.push(s.dim(`  § ${hit.matched_heading}`));
  }
  ctx.write(lines.join("\n") + "\n");
  if (options.total > hits.length && !options.explicitLimit) {
    ctx.writeErr(`codealmanac: showing the best ${hits.length} of ${options.total} results — use --limit N or --all for more, or narrow the query\n`);
  } else if (hits.length > 50 && !options.explicitLimit) {
    ctx.writeErr(`codealmanac: ${hits.length} results — consider --limit or a narrower query\n`);
  }
}

/** `freshness` is read only for the whole-page view, which says under the title when the page is stale. */
export function renderPage(ctx: CliContext, view: PageView, flag: PageViewFlag | undefined, freshness: PageFreshness | null): void {
  writePage(ctx, view, flag, freshness);
  // Said on stderr, after the text it concerns, so stdout stays the page itself.
  const cut = truncationOf(view);
  if (cut !== null && (flag === undefined || flag === "body" || flag === "lead")) ctx.writeErr(`codealmanac: ${view.slug}: ${cut}\n`);
}

function writePage(ctx: CliContext, view: PageView, flag: PageViewFlag | undefined, freshness: PageFreshness | null): void {
  // An empty list says so on stderr: stdout stays empty for scripts, a person is not left guessing.
  const list = (items: string[], none: string) => {
    if (items.length > 0) ctx.write(items.join("\n") + "\n");
    else ctx.writeErr(`codealmanac: ${view.slug}: ${none}\n`);
  };
  switch (flag) {
    case "body":
      if (view.body.trim() !== "") ctx.write(view.body.replace(/\n*$/, "\n"));
      return;
    case "lead": {
      const lead = leadOf(view.body);
      if (lead !== "") ctx.write(lead + "\n");
      return;
    }
    case "links":
      return list(view.page_links_out, "links to no other page");
    case "backlinks":
      return list(view.page_links_in, "no page links here");
    case "files":
      return list(view.file_refs.map((r) => r.path), "cites no repository files");
    case "topics":
      return list(view.topics, "has no topics");
    case "meta":
      ctx.write(metadata(ctx, view, null));
      return;
    default:
      ctx.write(metadata(ctx, view, freshness));
      if (view.body.trim() !== "") ctx.write(`\n${ctx.out.dim("---")}\n\n${view.body.replace(/\n*$/, "\n")}`);
  }
}

function metadata(ctx: CliContext, view: PageView, freshness: PageFreshness | null): string {
  const s = ctx.out;
  const line = (label: string, value: string) => labelled(label, value, 12, s);
  const out: string[] = [line("slug", s.blue(view.slug)), line("title", view.title ?? EM_DASH)];
  if (freshness?.status === "stale") out.push(line("stale", s.yellow(freshness.reason ?? "its cited code changed since it was verified")));
  if (view.summary) out.push(line("summary", view.summary));
  out.push(line("topics", view.topics.length > 0 ? view.topics.join(", ") : EM_DASH));
  if (view.file_refs.length > 0) out.push(line("files", view.file_refs.map((r) => r.path).join(", ")));
  if (view.sources.length > 0) {
    out.push(line("sources", ""));
    for (const src of view.sources) {
      out.push(`  ${src.source_id} [${src.source_type}]${src.target ? ` ${src.target}` : ""}${src.note ? ` - ${src.note}` : ""}`);
    }
  }
  out.push(line("path", view.file_path));
  out.push(line("updated", new Date(view.updated_at * 1000).toISOString().replace(/\.\d{3}Z$/, "+00:00")));
  if (view.page_links_out.length > 0) out.push(line("links", view.page_links_out.join(", ")));
  if (view.page_links_in.length > 0) out.push(line("backlinks", view.page_links_in.join(", ")));
  return out.map((l) => l.replace(/\s+$/, "")).join("\n") + "\n";
}
