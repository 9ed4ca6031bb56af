import { Option } from "@commander-js/extra-typings";
import type { App } from "../../app.js";
import { ProductError } from "../../core/errors.js";
import type { CliContext } from "../context.js";
import type { JsonOption, RegisterCommands, WikiOption } from "../kit.js";
import { MCP_CLIENTS, MCP_SCOPES, type McpClient, type McpScope, type RegistrationAction } from "../../mcp/install/model.js";

const SERVER_HELP = `
Coding agents (Claude Code, Codex, Cursor and any other MCP client) start this command
themselves and talk to it over stdin and stdout. It serves the wiki this directory selects
(walking up like every command), or the --wiki one: tools to search, read pages, find the
pages citing a file, browse topics and check health, and every page as a resource
(almanac://<wiki>/<slug>). Logs go to stderr. CODEALMANAC_MCP_WATCH=0 turns off folder
watching (for filesystems without change events): each call then checks the files.
`;

export const registerMcpCommands: RegisterCommands = (program, kit) => {
  const mcp = kit.act(
    program
      .command("mcp")
      .description("serve the wiki to coding agents over the Model Context Protocol (stdio)")
      .addOption(kit.wiki())
      .option("--allow-queue", "also offer the ingest, garden and job_status tools, which queue agent runs")
      .addHelpText("after", SERVER_HELP),
    serve,
  );

  // ── registration with agent clients: `mcp install`, `mcp uninstall` (src/mcp/install/) ──
  const registration = (verb: RegistrationAction, description: string) =>
    kit.act(
      mcp
        .command(verb)
        .description(description)
        .addOption(new Option("--client <client>", "the agent client: claude (Claude Code) or codex (Codex)").choices(MCP_CLIENTS).makeOptionMandatory())
        .addOption(
          new Option("--scope <scope>", "user: every project of yours; project: .mcp.json in this repository (claude only)")
            .choices(MCP_SCOPES)
            .default<McpScope>("user"),
        )
        .option("--print", "show what would be run or written, and change nothing")
        .addOption(kit.json())
        .addHelpText("after", REGISTRATION_HELP),
      (ctx, app, _args: [], opts: RegistrationOptions) => register(ctx, app, verb, opts),
    );
  registration("install", "register this CLI's MCP server with Claude Code or Codex (running it again changes nothing)");
  registration("uninstall", "remove the MCP server from Claude Code or Codex");
};

const REGISTRATION_HELP = `
Claude Code: runs \`claude mcp add|remove\` (the claude CLI must be on PATH; --print shows
the JSON to add by hand). Codex: edits [mcp_servers.codealmanac] in $CODEX_HOME/config.toml
(default ~/.codex), keeping everything else in the file as it is. The server is registered
as this node and this CLI's script, by absolute path.
`;

interface RegistrationOptions extends JsonOption {
  client: McpClient;
  scope: McpScope;
  print?: true;
}

async function register(ctx: CliContext, app: App, action: RegistrationAction, opts: RegistrationOptions): Promise<void> {
  const request = { client: opts.client, scope: opts.scope, print: opts.print === true };
  const [report, { describeRegistration, registrationJson }] = await Promise.all([
    app.changeMcpRegistration(action, request, ctx.cwd),
    import("../../mcp/install/describe.js"),
  ]);
  if (opts.json) return ctx.json(registrationJson(report));
  ctx.write(`${describeRegistration(report).join("\n")}\n`);
}

async function serve(ctx: CliContext, app: App, _args: [], opts: WikiOption & { allowQueue?: true }): Promise<void> {
  const wiki = opts.wiki === undefined ? null : opts.wiki.trim();
  if (wiki === "") throw new ProductError("usage", "--wiki must not be empty");
  await app.mcp({ cwd: ctx.cwd, wiki, allowQueue: opts.allowQueue === true });
}
