// Packs the chunks a read loads at start-up into one file (run by build.mjs after the
// CommonJS rewrite). Loading a chunk costs about a third of a millisecond before any of
// its code runs (resolving and reading the file, reading its code cache, compiling it),
// and esbuild's splitting gives a read some forty chunks, most of them small.
//
// The file of the CLI's main chunk then holds, besides its own code, the code of every
// chunk in the static closure of the main chunk and of the read families' chunks, each as
// a function that runs when first required. Each runs as a module of its own name: it is
// put into the CommonJS loader's cache under its own file name before its code runs, so a
// chunk outside the pack that requires it later gets the same module, and one already
// loaded (bin.js's) is never run twice. Every chunk file stays in place for other commands.
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** The families whose chunks come with the pack: the reads (src/cli/program.ts), those of PACKED_READ_COMMANDS in src/core/packed-reads.ts. */
const READ_FAMILIES = ["search", "show", "topics", "health"].map((name) => `src/cli/commands/${name}.ts`);

export function packReadPath(metafile) {
  const outputs = metafile.outputs;
  const byEntry = (entry) => Object.keys(outputs).find((file) => outputs[file].entryPoint === entry);
  const main = byEntry("src/cli/main.ts");
  if (!main) throw new Error("pack: no chunk for src/cli/main.ts");
  const roots = [main, ...READ_FAMILIES.map((entry) => byEntry(entry) ?? missing(entry))];
  const members = staticClosure(outputs, roots).filter((file) => file !== main && file.startsWith("dist/chunks/"));
  const modules = members.map((file) => `${JSON.stringify(basename(file))}: ${wrap(readFileSync(file, "utf8"))}`);
  const source = [
    '"use strict";',
    `const __caPacked = { ${modules.join(",\n")} };`,
    `const __caRequire = (${packedRequire.toString()})(__caPacked, require, module, __dirname);`,
    `(${wrap(readFileSync(main, "utf8"))}).call(exports, exports, __caRequire, module, __filename, __dirname);`,
    "",
  ].join("\n");
  // A new name for new content: the compile cache (src/core/compile-cache.ts) trusts a
  // chunk's name to say which code its cache describes.
  const hash = createHash("sha256").update(source).digest("hex").slice(0, 8).toUpperCase();
  const packedFile = join(dirname(main), `main-${hash}.js`);
  rmSync(main);
  writeFileSync(packedFile, source);
  const entry = readFileSync("dist/bin.js", "utf8");
  const reference = `./chunks/${basename(main)}`;
  if (!entry.includes(reference)) throw new Error(`pack: dist/bin.js does not load ${reference}`);
  writeFileSync("dist/bin.js", entry.replaceAll(reference, `./chunks/${basename(packedFile)}`));
  metafile.outputs[packedFile] = { ...outputs[main], packed: members };
  delete metafile.outputs[main];
  return { file: packedFile, chunks: members.length };
}

function missing(entry) {
  throw new Error(`pack: no chunk for ${entry}`);
}

/** Every output reachable from `roots` by static imports (the chunks that load with them). */
function staticClosure(outputs, roots) {
  const seen = new Set(roots);
  const queue = [...roots];
  while (queue.length > 0) {
    for (const imported of outputs[queue.shift()].imports) {
      if (imported.kind !== "import-statement" || imported.external || seen.has(imported.path)) continue;
      seen.add(imported.path);
      queue.push(imported.path);
    }
  }
  return [...seen];
}

/** A chunk's code as the CommonJS loader would wrap it; its "use strict" stays the body's first statement. */
function wrap(code) {
  return `function (exports, require, module, __filename, __dirname) {\n${code}\n}`;
}

/**
 * Runs inside the packed file (its source is copied there): a require for the packed
 * chunks that loads each one, once, as the module its own file would be.
 */
function packedRequire(packed, outer, parent, dir) {
  const Module = outer("node:module");
  const { join } = outer("node:path");
  const packedRequire = (id) => {
    const name = id.startsWith("./") ? id.slice(2) : "";
    if (!Object.prototype.hasOwnProperty.call(packed, name)) return outer(id);
    const filename = join(dir, name);
    const cached = Module._cache[filename];
    if (cached) return cached.exports;
    const chunk = new Module(filename, parent);
    chunk.filename = filename;
    chunk.paths = parent.paths;
    Module._cache[filename] = chunk;
    try {
      packed[name].call(chunk.exports, chunk.exports, packedRequire, chunk, filename, dir);
    } catch (error) {
      // As the loader does: a chunk that failed to load is not left half-made in the cache.
      delete Module._cache[filename];
      throw error;
    }
    chunk.loaded = true;
    return chunk.exports;
  };
  return packedRequire;
}
