import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/mini";
import { oneLine } from "../core/errors.js";
import { VERSION } from "../core/version.js";
import { ChangeWatch } from "./changes.js";
import type { McpDeps } from "./deps.js";
import { PROTOCOL, ProtocolError } from "./errors.js";
import { paramChecks } from "./messages.js";
import { OVERVIEW_TEMPLATE } from "./overview.js";
import { PAGE_TEMPLATE, PageResources } from "./resources.js";
import { claimStdout } from "./stdout.js";
import { buildTools } from "./tools/index.js";
import { LineTransport, MAX_MESSAGE_BYTES } from "./transport.js";
import { Wikis } from "./wikis.js";

/**
 * tools/call, with its params left to the checks before it (the transport's, then the
 * SDK's, both -32602 for malformed params such as arguments that are not an object),
 * while a failed match against the registered schema would be reported as an internal error.
 */
const ToolCallRequest = z.object({ method: z.literal("tools/call"), params: z.optional(z.unknown()) });

/**
 * Every request the server answers. The transport checks their params against these
 * schemas first: the SDK answers a mismatch with -32603 and zod's whole report, which is
 * neither the right code nor one line.
 */
const REQUESTS = paramChecks([
  InitializeRequestSchema,
  PingRequestSchema,
  ListToolsRequestSchema,
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
]);

const INSTRUCTIONS = `This server reads the CodeAlmanac wiki of the repository you are working in: Markdown pages, kept by coding agents, that explain how the code works, why it is built that way, and what to watch out for.
- Before changing code you do not know, search the wiki and read the pages that come up.
- Just before editing a file, call pages_for_file with its path: those pages describe that code and may need updating after your change.
- A page whose freshness is stale cites code that changed since the page was verified: check that code before relying on the page.
- Pages are also resources: almanac://<wiki>/<slug>. almanac://<wiki> is where to start: the landing page, the topics and every page's slug and summary.`;

/**
 * `ca mcp`: serves the wiki over stdio until the client disconnects (stdin ends) or the
 * process is told to stop. Nothing but protocol messages reaches stdout; logs go to stderr.
 */
export async function serveMcp(deps: McpDeps): Promise<void> {
  const stdout = claimStdout();
  const wikis = new Wikis(deps);
  const tools = buildTools({ wikis, queue: deps.queue, drift: deps.drift }, { log: deps.log });
  const resources = new PageResources(wikis, deps.log);
  const server = new Server(
    { name: "codealmanac", title: "CodeAlmanac", version: VERSION },
    {
      capabilities: { tools: {}, resources: { listChanged: true } },
      instructions: INSTRUCTIONS,
      // Only elicitation uses it, which this server never sends; the default compiles a JSON Schema engine at start-up.
      jsonSchemaValidator: { getValidator: () => () => ({ valid: false, data: undefined, errorMessage: "not supported" }) },
    },
  );
  const changes = new ChangeWatch({
    wikis,
    announce: () => void server.sendResourceListChanged().catch(() => undefined),
    everyMs: deps.changePollMs,
    log: deps.log,
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools.values()].map((tool) => tool.listing) }));
  server.setRequestHandler(ToolCallRequest, async (request) => {
    const { params } = CallToolRequestSchema.parse(request);
    const tool = tools.get(params.name);
    if (!tool) throw new ProtocolError(PROTOCOL.invalidParams, `unknown tool: ${params.name} (tools/list names them)`);
    return tool.call(params.arguments);
  });
  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const { answer, shows } = await resources.list(request.params?.cursor);
    // A list from the start is what the client now knows; later changes are news to it.
    if (request.params?.cursor === undefined) changes.seen(shows);
    return answer;
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [OVERVIEW_TEMPLATE, PAGE_TEMPLATE] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => resources.read(request.params.uri));

  server.oninitialized = () => {
    const wiki = wikis.defaultName();
    deps.log(
      wiki === null
        ? `codealmanac mcp: no wiki selected from ${deps.cwd}; tools will say how to create one`
        : `codealmanac mcp: serving the wiki ${wiki}${deps.queue ? " (queue tools on)" : ""}`,
    );
    changes.start();
  };
  server.onerror = (error) => deps.log(`codealmanac mcp: ${oneLine(error)}`);

  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  const stop = () => void server.close();
  process.stdin.once("end", stop);
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await server.connect(new LineTransport(process.stdin, stdout.stream, { maxMessageBytes: MAX_MESSAGE_BYTES, requests: REQUESTS }));
    await closed;
  } finally {
    process.stdin.off("end", stop);
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    changes.stop();
    wikis.close();
    stdout.release();
  }
}
