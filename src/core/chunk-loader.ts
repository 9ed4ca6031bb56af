import Module from "node:module";
import { readFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";

interface Loading {
  filename: string;
  _compile(content: string, filename: string): unknown;
}

interface Loader {
  _resolveFilename(request: string, parent: Loading | undefined, ...rest: unknown[]): string;
  _extensions: Record<string, (module: Loading, filename: string) => void>;
}

/**
 * Loads the bundle's chunks without Node's module search. A chunk is asked for by its
 * sibling's name (`./chunk-X.js`, or `./chunks/main-X.js` from bin.js), and the bundle
 * never moves or links its own files, so the path is the parent's folder joined with the
 * name: no stat of candidates, no real-path walk and no look for a package.json scope.
 * That was about 1 ms of a read's start-up for its main chunk alone. Any other request
 * goes the usual way, and a chunk that is missing fails as any unreadable module does.
 */
export function loadChunksDirectly(distDir: string): void {
  const loader = Module as unknown as Loader;
  const chunks = join(distDir, "chunks") + sep;
  const resolve = loader._resolveFilename;
  loader._resolveFilename = function (request, parent, ...rest) {
    if (parent?.filename && request.startsWith("./") && request.endsWith(".js") && !request.includes("..")) {
      const path = join(dirname(parent.filename), request);
      if (path.startsWith(chunks) && !path.slice(chunks.length).includes(sep)) return path;
    }
    return resolve.call(this, request, parent, ...rest);
  };
  const javascript = loader._extensions[".js"];
  if (!javascript) return;
  loader._extensions[".js"] = function (module, filename) {
    // dist/package.json says CommonJS for every file here, so there is no scope to look up.
    if (!filename.startsWith(chunks)) return javascript.call(this, module, filename);
    module._compile(readFileSync(filename, "utf8"), filename);
  };
}
