import { Option } from "@commander-js/extra-typings";
import type { App } from "../../app.js";
import { ProductError } from "../../core/errors.js";
import type { CliContext } from "../context.js";
import { integer, type RegisterCommands, type WikiOption } from "../kit.js";

const DEFAULT_HOST = "127.0.0.1";
const DEFAULT_PORT = 3927;

const HELP = `
The viewer shows the wiki this directory selects (or --wiki), and can switch to any
registered wiki: pages, search, topics, a graph of links and topics, and jobs with
their transcripts live. It listens on ${DEFAULT_HOST} only; with another --host every
request needs the token in the printed URL. Ctrl-C stops it.
`;

export const registerServeCommands: RegisterCommands = (program, kit) => {
  kit.act(
    program
      .command("serve")
      .description("open the local web viewer: browse pages, search, the graph and live jobs")
      .addOption(kit.wiki())
      .option("--host <host>", "address to listen on; off loopback every request needs the printed token", DEFAULT_HOST)
      .addOption(new Option("--port <n>", "port to listen on; 0 picks a free one").argParser(integer).default(DEFAULT_PORT))
      .option("--no-open", "do not open a browser")
      .addHelpText("after", HELP),
    serve,
  );
};

async function serve(ctx: CliContext, app: App, _args: [], opts: WikiOption & { host: string; port: number; open: boolean }): Promise<void> {
  const port = opts.port;
  if (port < 0 || port > 65_535) throw new ProductError("usage", `invalid --port ${port}: it must be from 0 to 65535`);
  const host = opts.host.trim();
  if (host === "") throw new ProductError("usage", "--host must not be empty");
  const wiki = opts.wiki === undefined ? null : app.repositories.byName(opts.wiki).name;
  const viewer = await app.viewer({ cwd: ctx.cwd, wiki, host, port });
  ctx.write(`codealmanac viewer: ${viewer.url}\n`);
  if (!viewer.loopback) {
    ctx.writeErr(`codealmanac: warning: listening on ${host}, not loopback: anyone who can reach it needs the token in the URL above\n`);
  }
  if (opts.open !== false) await app.openBrowser(viewer.url);
  await stopRequested();
  await viewer.close();
}

/** Ctrl-C or SIGTERM: a normal stop (exit 0). */
function stopRequested(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
