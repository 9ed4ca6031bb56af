import Module, { createRequire } from "node:module";
import { Script } from "node:vm";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, sep } from "node:path";

/**
 * A V8 code cache for the bundle's chunks. Node 20 has no compile cache of its own
 * (`module.enableCompileCache` arrived in Node 22), and compiling the chunks a command
 * loads, plus the functions it then calls, is several milliseconds of every command.
 *
 * Chunk names carry a content hash, so a cache file can never describe other code; the
 * folder is keyed by our version and Node's, and V8 itself rejects data made under other
 * flags, in which case the chunk compiles normally and its cache is written again.
 * Nothing here may fail a command: every cache read and write is best effort.
 */
export interface CompileCache {
  /** Writes the cache of every chunk compiled without one; call once the command's work is done. */
  save(): { used: number; written: number };
}

interface Loading {
  exports: unknown;
}

type Wrapper = (exports: unknown, require: NodeJS.Require, module: Loading, filename: string, dirname: string) => unknown;

const NO_CACHE: CompileCache = { save: () => ({ used: 0, written: 0 }) };
/** More files than any one version has chunks: a folder this full is stale leftovers of development builds. */
const MAX_FILES = 200;

export interface CompileCacheOptions {
  chunksDir: string;
  cacheRoot: string;
  version: string;
  /** The name its cache file takes (before `.v8`) for a chunk's file name; the file name itself unless given. */
  cacheName?: (chunk: string) => string;
}

export function enableCompileCache(options: CompileCacheOptions): CompileCache {
  const proto = Module.prototype as unknown as { _compile?: (content: string, filename: string) => unknown };
  const original = proto._compile;
  if (typeof original !== "function") return NO_CACHE;
  const folder = join(options.cacheRoot, "compile", `${options.version}-node${process.versions.node}-${process.arch}`);
  const prefix = options.chunksDir + sep;
  const pending: { file: string; script: Script }[] = [];
  let used = 0;

  proto._compile = function (this: Loading, content: string, filename: string) {
    if (!filename.startsWith(prefix)) return original.call(this, content, filename);
    const file = join(folder, `${(options.cacheName ?? String)(basename(filename))}.v8`);
    const cachedData = readOptional(file);
    const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${content}\n});`, {
      filename,
      ...(cachedData ? { cachedData } : {}),
    });
    if (cachedData && !script.cachedDataRejected) used++;
    else pending.push({ file, script });
    const wrapper = script.runInThisContext() as Wrapper;
    return wrapper.call(this.exports, this.exports, createRequire(filename), this, filename, dirname(filename));
  };

  return {
    save() {
      let written = 0;
      if (pending.length > 0 && prepareFolder(folder)) {
        for (const { file, script } of pending.splice(0)) {
          // Made after the command ran, so the functions it called are in the cache too.
          if (writeAtomically(file, script.createCachedData())) written++;
        }
      }
      return { used, written };
    },
  };
}

function readOptional(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Creates this version's folder; the first process to do so removes the folders of other versions. */
function prepareFolder(folder: string): boolean {
  try {
    const created = mkdirSync(folder, { recursive: true });
    const parent = dirname(folder);
    if (created !== undefined) {
      for (const name of readdirSync(parent)) if (name !== basename(folder)) rmSync(join(parent, name), { recursive: true, force: true });
    } else if (readdirSync(folder).length > MAX_FILES) {
      rmSync(folder, { recursive: true, force: true });
      mkdirSync(folder, { recursive: true });
    }
    return true;
  } catch {
    return false;
  }
}

/** Temp file and rename: a concurrent reader sees the old file, the new one, or none. */
function writeAtomically(file: string, data: Buffer): boolean {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, data);
    renameSync(temp, file);
    return true;
  } catch {
    rmSync(temp, { force: true });
    return false;
  }
}
