import type { CallToolResult, Tool as ToolListing } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/mini";
import { isProductError, oneLine } from "../../core/errors.js";
import { argumentProblems } from "./arguments.js";

/** What a tool answers: text for the model to read, and the same facts as data. */
export interface ToolReply<T> {
  text: string;
  data: T;
}

export interface ToolSpec<I extends z.ZodMiniType, O extends z.ZodMiniType> {
  name: string;
  title: string;
  /** Written for a model: when to call the tool, and what comes back. */
  description: string;
  input: I;
  output: O;
  /** Reads only (the default); a tool that queues work says false. */
  readOnly?: boolean;
  run(args: z.output<I>): Promise<ToolReply<z.output<O>>>;
}

/** A tool with its types erased, ready for tools/list and tools/call. */
export interface Tool {
  name: string;
  listing: ToolListing;
  call(args: unknown): Promise<CallToolResult>;
}

export interface ToolRuntime {
  /** One line for the server's log (stderr): unexpected failures with their stacks. */
  log(line: string): void;
}

export function defineTool<I extends z.ZodMiniType, O extends z.ZodMiniType>(spec: ToolSpec<I, O>): (runtime: ToolRuntime) => Tool {
  return (runtime) => ({
    name: spec.name,
    listing: {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: jsonSchema(spec.input, "input") as ToolListing["inputSchema"],
      outputSchema: jsonSchema(spec.output, "output") as ToolListing["outputSchema"],
      annotations: {
        title: spec.title,
        readOnlyHint: spec.readOnly !== false,
        destructiveHint: false,
        idempotentHint: spec.readOnly !== false,
        openWorldHint: false,
      },
    },
    call: async (args) => {
      const parsed = spec.input.safeParse(args ?? {});
      if (!parsed.success) return failure(`invalid arguments for ${spec.name}: ${argumentProblems(parsed.error.issues, args ?? {})}`);
      try {
        const reply = await spec.run(parsed.data);
        return { content: [{ type: "text", text: reply.text }], structuredContent: reply.data as Record<string, unknown> };
      } catch (error) {
        if (isProductError(error)) return failure(oneLine(error));
        runtime.log(`codealmanac mcp: ${spec.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : oneLine(error)}`);
        return failure(`internal error in ${spec.name}: ${oneLine(error)}`);
      }
    },
  });
}

/** An error the model can read and act on: one line, `isError` set. */
export function failure(message: string): CallToolResult {
  return { content: [{ type: "text", text: message.replace(/\s*\n\s*/g, " ") }], isError: true };
}

/**
 * Draft-07, as MCP clients validate it. zod writes every integer's safe range as bounds
 * (`minimum: -9007199254740991`); a model reads them as meaning something, so they go,
 * and a schema keeps only the bounds its tool set (`countField`, a limit's 1 to 100).
 */
function jsonSchema(schema: z.ZodMiniType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: "draft-7", io, override: withoutSafeBounds }) as Record<string, unknown>;
  return rest;
}

function withoutSafeBounds({ jsonSchema }: { jsonSchema: { minimum?: number; maximum?: number } }): void {
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
}
