#!/usr/bin/env node
// Entry point for both `codealmanac` and `ca`. `--version` answers without loading
// anything else; every other command loads the CLI lazily.
import { VERSION } from "./core/version.js";
import { trace } from "./core/trace.js";

trace("bin started");

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  process.stdout.write(`codealmanac ${VERSION}\n`);
} else if (args[0] === "__run-worker" || args[0] === "__run-executor") {
  const { runBackground } = await import("./background.js");
  process.exitCode = await runBackground(args);
} else {
  const { main } = await import("./cli/main.js");
  process.exitCode = await main(args);
}
