import * as z from "zod/mini";
import type { Receipt } from "../../queue/producer.js";
import type { RunRecord } from "../../runs/model.js";
import { runSummaryJson } from "../../runs/json.js";
import type { QueuePort } from "../deps.js";
import { countField, wikiArgument, wikiField } from "./common.js";
import type { ToolContext } from "./context.js";
import { defineTool } from "./tool.js";

const guidance = z.optional(
  z.string().check(z.minLength(1), z.describe("Extra instructions for the agent that does the run (what to focus on, what to leave alone).")),
);
const title = z.optional(z.string().check(z.minLength(1), z.describe("A title for the job (default: derived from the work).")));

const RECEIPT = z.object({
  run_id: z.string().check(z.describe("pass it to job_status")),
  kind: z.enum(["ingest", "garden"]),
  wiki: wikiField,
  status: z.literal("queued"),
  runs_ahead: countField("runs queued before this one"),
});
type ReceiptOutput = z.output<typeof RECEIPT>;

function receiptReply(kind: "ingest" | "garden", receipt: Receipt) {
  const data: ReceiptOutput = { run_id: receipt.run_id, kind, wiki: receipt.repository, status: receipt.status, runs_ahead: receipt.runs_ahead };
  const ahead = receipt.runs_ahead > 0 ? `, ${receipt.runs_ahead} ahead of it` : "";
  return {
    data,
    text: `Queued ${kind} run ${receipt.run_id} for wiki ${receipt.repository}${ahead}. It runs in the background; check it with job_status.`,
  };
}

/** Present only with --allow-queue, so the tool list never offers what the server would refuse. */
function queueOf(context: ToolContext): QueuePort {
  if (context.queue === null) throw new Error("queue tools need --allow-queue");
  return context.queue;
}

export const ingestTool = (context: ToolContext) =>
  defineTool({
    name: "ingest",
    title: "Queue an ingest run",
    description:
      "Queue a background agent run that folds sources into the wiki: repository files or folders, git ranges (git:range:A..B, git:commit:REV, git:diff), GitHub items (github:pr:N, github:issue:N), URLs, or agent transcripts (transcript:ID). Use it after finishing work the wiki should record. Returns the run id at once; the run takes minutes; follow it with job_status.",
    input: z.strictObject({
      inputs: z.array(z.string().check(z.minLength(1))).check(z.minLength(1), z.describe("What to ingest, one address each.")),
      guidance,
      title,
      wiki: wikiArgument,
    }),
    output: RECEIPT,
    readOnly: false,
    run: async (args) => {
      const wiki = context.wikis.available(args.wiki);
      const receipt = await queueOf(context).ingest(wiki.name, args.inputs, options(args));
      return receiptReply("ingest", receipt);
    },
  });

export const gardenTool = (context: ToolContext) =>
  defineTool({
    name: "garden",
    title: "Queue a garden run",
    description:
      "Queue a background agent run that improves the wiki as a whole: fixes broken links and stale citations, merges duplicates, files pages under topics (see wiki_health for what it would find). Returns the run id at once; follow it with job_status.",
    input: z.strictObject({ guidance, title, wiki: wikiArgument }),
    output: RECEIPT,
    readOnly: false,
    run: async (args) => {
      const wiki = context.wikis.available(args.wiki);
      const receipt = await queueOf(context).garden(wiki.name, options(args));
      return receiptReply("garden", receipt);
    },
  });

function options(args: { guidance?: string | undefined; title?: string | undefined }) {
  return { ...(args.guidance !== undefined ? { guidance: args.guidance } : {}), ...(args.title !== undefined ? { title: args.title } : {}) };
}

const STATUS = z.object({
  run_id: z.string(),
  kind: z.string(),
  status: z.enum(["queued", "running", "done", "failed", "cancelled"]),
  wiki: z.string(),
  title: z.nullable(z.string()),
  summary: z.nullable(z.string()).check(z.describe("what the agent reported, once done")),
  error: z.nullable(z.string()),
  created_at: z.string(),
  started_at: z.nullable(z.string()),
  finished_at: z.nullable(z.string()),
  page_changes: z.nullable(z.object({ created: z.array(z.string()), updated: z.array(z.string()), deleted: z.array(z.string()) })),
});
type StatusOutput = z.output<typeof STATUS>;

export const jobStatusTool = (context: ToolContext) =>
  defineTool({
    name: "job_status",
    title: "Job status",
    description:
      "Report a queued agent run by its id (from ingest or garden): queued, running, done, failed or cancelled, with its summary or error and the wiki pages it created, updated or deleted once finished.",
    input: z.strictObject({
      run_id: z.string().check(z.minLength(1), z.describe("The run id that ingest or garden returned.")),
    }),
    output: STATUS,
    run: async (args) => {
      const data = statusOf(await queueOf(context).run(args.run_id.trim()));
      return { data, text: statusText(data) };
    },
  });


/** The shared run summary (runs/json.ts), cut to what the tool's output schema promises. */
function statusOf(run: RunRecord): StatusOutput {
  const s = runSummaryJson(run);
  return {
    run_id: s.run_id,
    kind: s.kind,
    status: s.status,
    wiki: s.repository,
    title: s.title,
    summary: s.summary,
    error: s.error,
    created_at: s.created_at!,
    started_at: s.started_at,
    finished_at: s.finished_at,
    page_changes: s.page_changes,
  };
}

function statusText(run: StatusOutput): string {
  const lines = [`Run ${run.run_id} (${run.kind}, wiki ${run.wiki}): ${run.status}.`];
  if (run.title) lines.push(`title: ${run.title}`);
  lines.push(`queued ${run.created_at}${run.started_at ? ` · started ${run.started_at}` : ""}${run.finished_at ? ` · finished ${run.finished_at}` : ""}`);
  if (run.summary) lines.push(`summary: ${run.summary}`);
  if (run.error) lines.push(`error: ${run.error}`);
  const changes = run.page_changes;
  if (changes) {
    for (const [what, slugs] of [["created", changes.created], ["updated", changes.updated], ["deleted", changes.deleted]] as const) {
      if (slugs.length > 0) lines.push(`${what}: ${slugs.join(", ")}`);
    }
  }
  return lines.join("\n");
}
