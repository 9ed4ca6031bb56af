/**
 * The parse side of registering our MCP server with Codex. `ca mcp install|uninstall
 * --client codex` edits `$CODEX_HOME/config.toml` line by line (src/mcp/install/codex-table.ts)
 * and checks each result here before writing: valid TOML, the intended
 * `mcp_servers.<name>` value, and every other value exactly as before.
 */
import { parse as parseToml } from "smol-toml";

export type CodexConfigView =
  | {
      valid: true;
      /** The parsed `mcp_servers.<name>` value; undefined when the file has none. */
      entry: unknown;
      /** Every other value of the file in a canonical form (sorted keys): equal strings mean equal contents. */
      others: string;
    }
  | { valid: false; problem: string };

export function viewCodexMcpServer(text: string, name: string): CodexConfigView {
  let tree: Record<string, unknown>;
  try {
    tree = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    const first = (error as Error).message.split("\n")[0] ?? "";
    return { valid: false, problem: first.trim() || "not valid TOML" };
  }
  const servers = tree.mcp_servers;
  if (!isTable(servers)) return { valid: true, entry: undefined, others: canonical(tree) };
  const { [name]: entry, ...otherServers } = servers;
  const rest: Record<string, unknown> = { ...tree, mcp_servers: otherServers };
  // A table left empty by removing ours is the same as no table: the text no longer names it.
  if (Object.keys(otherServers).length === 0) delete rest.mcp_servers;
  return { valid: true, entry, others: canonical(rest) };
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function canonical(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isTable(value)) return value instanceof Date ? `date:${String(value)}` : value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys(value[key])]),
  );
}
