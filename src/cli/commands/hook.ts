import type { App } from "../../app.js";
import { oneLine } from "../../core/errors.js";
import { queueSupported } from "../../core/platform.js";
import { PAYLOAD_LIMIT_BYTES, sessionEndRequest } from "../../sync/hook.js";
import { sessionTarget } from "../../sync/session.js";
import type { CliContext } from "../context.js";
import type { RegisterCommands } from "../kit.js";
import { sessionLine } from "../render/sync.js";

/**
 * `hook session-end`: what the agents' SessionEnd hooks run (`setup` installs them). It
 * must never slow or break the agent: it reads the payload, records the request in the
 * hooks' log, detaches `hook session-end --session <transcript>` to do the work, and
 * returns; it never writes to stdout and always exits 0. Hidden: people run `sync --session`.
 */
export const registerHookCommands: RegisterCommands = (program, kit) => {
  const hook = program.command("hook", { hidden: true }).description("entry points for the agents' own hooks (installed by `ca setup`)");
  kit.act(
    hook
      .command("session-end")
      .description("a session ended: read its SessionEnd payload from stdin and sync it in the background (logs to <state>/logs/hooks.log)")
      .option("--session <id-or-path>", "the detached part: sync this session now, logging what was done"),
    sessionEnd,
  );
};

async function sessionEnd(ctx: CliContext, app: App, _args: [], opts: { session?: string }): Promise<void> {
  const log = (line: string) => app.hookLog(`session-end: ${line}`);
  try {
    if (!queueSupported(app.platform)) return log("the run queue does not run on this platform; the session is left for `ca sync`");
    if (opts.session !== undefined) return log(sessionLine(await (await app.sync()).syncSession({ target: sessionTarget(opts.session, ctx.cwd) })));
    const payload = await readPayload(process.stdin);
    const request = sessionEndRequest(payload, ctx.env);
    if (!request.sync) return log(`ignored: ${request.why}`);
    const pid = await app.detachSessionSync(request.target);
    log(`${request.sessionId ?? request.target}${request.reason ? ` (${request.reason})` : ""}: syncing ${request.target} in process ${pid}`);
  } catch (error) {
    log(`failed: ${oneLine(error)}`);
  } finally {
    ctx.exitCode = 0;
  }
}

/** The payload on stdin, up to the limit; nothing when stdin is a terminal (run by hand). */
async function readPayload(stdin: NodeJS.ReadStream): Promise<string> {
  if (stdin.isTTY) return "";
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > PAYLOAD_LIMIT_BYTES) break;
  }
  return Buffer.concat(chunks).toString("utf8").slice(0, PAYLOAD_LIMIT_BYTES);
}
