#!/usr/bin/env node
// Entry point for both `codealmanac` and `ca`. `--version` answers without loading
// anything else; every other command loads the CLI lazily.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { VERSION } from "./core/version.js";
import { trace } from "./core/trace.js";
import { statePaths } from "./core/paths.js";
import { enableCompileCache, type CompileCache } from "./core/compile-cache.js";
import { loadChunksDirectly } from "./core/chunk-loader.js";
import { PACKED_READ_COMMANDS } from "./core/packed-reads.js";
import { flushStreams, writeDirectly, writeErr, writeOut } from "./core/stdio.js";

trace("node up");
writeDirectly();
const distDir = dirname(fileURLToPath(import.meta.url));
loadChunksDirectly(distDir);

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  writeOut(`codealmanac ${VERSION}\n`);
} else if (args[0] === "__run-worker" || args[0] === "__run-executor") {
  const cache = compileCache();
  void import("./background.js")
    .then(async ({ runBackground }) => {
      process.exitCode = await runBackground(args);
      saveCompileCache(cache);
    })
    .catch(failedToStart);
} else {
  const cache = compileCache();
  void import("./cli/main.js").then(async ({ main }) => {
    process.exitCode = await main(args);
    // Leave as soon as the output is flushed: otherwise pending file closes and idle
    // handles hold the process open for several more milliseconds.
    await flushStreams();
    saveCompileCache(cache);
    process.exit();
  }).catch(failedToStart);
}

/** Whatever escapes an entry point (a chunk that cannot load, say) is one line, never a stack. */
function failedToStart(error: unknown): void {
  const text = error instanceof Error ? error.message : String(error);
  writeErr(`codealmanac: ${text.split("\n", 1)[0]}\n`);
  process.exitCode = 1;
}

/** Installed before the first chunk loads; CODEALMANAC_NO_COMPILE_CACHE=1 turns it off. */
function compileCache(): CompileCache | null {
  if (process.env.CODEALMANAC_NO_COMPILE_CACHE === "1") return null;
  const chunksDir = join(distDir, "chunks");
  // The main chunk holds the packed reads (scripts/pack-read-path.mjs): each read keeps its own cache of it.
  const read = PACKED_READ_COMMANDS.find((command) => command === args[0]);
  const cacheName = (chunk: string) => (read && chunk.startsWith("main-") ? chunk.replace(/\.js$/, `-${read}.js`) : chunk);
  return enableCompileCache({ chunksDir, cacheRoot: statePaths().cache, version: VERSION, cacheName });
}

function saveCompileCache(cache: CompileCache | null): void {
  // `uninstall` deletes the state directory; writing the cache would bring it back.
  if (!cache || !existsSync(statePaths().root)) return;
  const { used, written } = cache.save();
  trace(`compile cache: ${used} chunks from the cache, ${written} written`);
}
