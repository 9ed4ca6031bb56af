#!/usr/bin/env node
// Entry point for both `codealmanac` and `ca`. `--version` answers without loading
// anything else; every other command loads the CLI lazily.
import { VERSION } from "./core/version.js";
import { trace } from "./core/trace.js";

trace("bin started");

// A reader that went away (`ca search … | head`) ends the command quietly, as it would for git.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
  });
}

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  process.stdout.write(`codealmanac ${VERSION}\n`);
} else if (args[0] === "__run-worker" || args[0] === "__run-executor") {
  void import("./background.js").then(async ({ runBackground }) => {
    process.exitCode = await runBackground(args);
  });
} else {
  void import("./cli/main.js").then(async ({ main }) => {
    process.exitCode = await main(args);
    // Leave as soon as the output is flushed: otherwise pending file closes and idle
    // handles hold the process open for several more milliseconds.
    await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
    process.exit();
  });
}

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write("", () => resolve()));
}
