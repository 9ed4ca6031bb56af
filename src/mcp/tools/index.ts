import type { ToolContext } from "./context.js";
import { healthTool } from "./health.js";
import { gardenTool, ingestTool, jobStatusTool } from "./queue.js";
import { readPageTool } from "./read-page.js";
import { pagesForFileTool, searchTool } from "./search.js";
import type { Tool, ToolRuntime } from "./tool.js";
import { topicsTool } from "./topics.js";
import { listWikisTool } from "./wikis.js";

/** The tools this server offers, in the order clients list them; queueing only with --allow-queue. */
export function buildTools(context: ToolContext, runtime: ToolRuntime): Map<string, Tool> {
  const reading = [searchTool, readPageTool, pagesForFileTool, topicsTool, healthTool, listWikisTool];
  const queueing = context.queue === null ? [] : [ingestTool, gardenTool, jobStatusTool];
  const tools = [...reading, ...queueing].map((define) => define(context)(runtime));
  return new Map(tools.map((tool) => [tool.name, tool]));
}
