// Bundles the CLI into dist/ with esbuild, in two steps.
//
// 1. Bundle with code splitting (ESM, the only format esbuild splits): dist/bin.js stays
//    tiny and every command loads only the chunks it needs.
// 2. Rewrite every output file as CommonJS, and mark dist/ as CommonJS. Node 20 loads a
//    CommonJS file in a fraction of the time its ESM loader takes per module, which is
//    about 10 ms of every command's start-up on the read path.
import { build, transform } from "esbuild";
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { packReadPath } from "./pack-read-path.mjs";

// commander loads node:child_process up front only for executable subcommands, which
// this CLI never uses; the shim loads it on first use and saves every command ~2 ms.
const lazyChildProcess = {
  name: "lazy-child-process",
  setup(build) {
    build.onResolve({ filter: /^node:child_process$/ }, (args) =>
      args.importer.includes("/node_modules/commander/") ? { path: "commander-child-process", namespace: "lazy" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "lazy" }, () => ({
      contents: "module.exports = { spawn: (...args) => require('node:child_process').spawn(...args) };",
      loader: "js",
    }));
  },
};

// markdown-it ships its class fields lowered to `_defineProperty(this, "key", value)` calls,
// whose keyed property definitions cost about 0.8 s of the 10,000-page bench rebuild (a fifth
// of markdown-it's time; almanac/architecture/index.md, "Parsing"). Each call with a literal
// key becomes `this.key = value`, which does the same here: no markdown-it class has accessors,
// so an assignment defines the same own, writable, enumerable property. Calls the patterns do
// not match keep the helper.
const FIELD_CALLS = [
  /(\t*)_defineProperty\(\n\1\tthis,\n(?:\1\t\/\*[\s\S]*?\*\/\n)?\1\t"([A-Za-z_$][\w$]*)",\n\1\t([\s\S]*?)\n\1\);/g,
  /^(\t*)_defineProperty\(this, "([A-Za-z_$][\w$]*)", (.*)\);$/gm,
];
const markdownItFields = {
  name: "markdown-it-fields",
  setup(build) {
    build.onLoad({ filter: /[\\/]markdown-it[\\/]dist[\\/]markdown-it\.mjs$/ }, (args) => {
      let source = readFileSync(args.path, "utf8");
      if (/^\s*(?:get|set|static) /m.test(source)) return { contents: source, loader: "js" };
      for (const call of FIELD_CALLS) source = source.replace(call, (_, indent, key, value) => `${indent}this.${key} = ${value};`);
      return { contents: source, loader: "js" };
    });
  },
};

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
rmSync("dist", { recursive: true, force: true });
mkdirSync("dist", { recursive: true });

const result = await build({
  entryPoints: { bin: "src/bin.ts", "parse-worker": "src/index/parse-worker.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  chunkNames: "chunks/[name]-[hash]",
  // better-sqlite3's JavaScript is bundled (loading it as a package costs a detour through
  // the package resolver on every start); its addon is loaded by path (src/core/sqlite.ts),
  // so the package's own addon finder is never needed.
  external: ["bindings"],
  define: { __CODEALMANAC_VERSION__: JSON.stringify(pkg.version) },
  plugins: [lazyChildProcess, markdownItFields],
  logLevel: "warning",
  metafile: true,
});
for (const file of jsFiles("dist")) {
  const source = readFileSync(file, "utf8");
  const shebang = source.startsWith("#!") ? source.slice(0, source.indexOf("\n") + 1) : "";
  const { code } = await transform(source.slice(shebang.length), {
    loader: "js",
    format: "cjs",
    platform: "node",
    target: "node20",
    // import() of a chunk becomes require() inside a promise; import.meta.url, this file's URL.
    supported: { "dynamic-import": false },
    define: { "import.meta.url": "__caModuleUrl" },
    logLevel: "warning",
  });
  const url = code.includes("__caModuleUrl") ? 'const __caModuleUrl = require("node:url").pathToFileURL(__filename).href;\n' : "";
  // ES modules are always strict; the rewritten files must stay so.
  writeFileSync(file, `${shebang}"use strict";\n${url}${code}`);
}
// The chunks a read loads, in one file: see pack-read-path.mjs.
packReadPath(result.metafile);
// Which sources each chunk holds, for the start-up test (test/cli/startup-modules.test.ts) and
// for finding what a command loads; kept beside dist/, not in the package.
mkdirSync(".build", { recursive: true });
writeFileSync(".build/metafile.json", JSON.stringify(result.metafile));
writeFileSync("dist/package.json", JSON.stringify({ type: "commonjs" }, null, 2) + "\n");

cpSync("src/wiki/manual", "dist/manual", { recursive: true });
// The viewer's client ships as written (no build step), next to the chunks that serve it
// (src/viewer/static.ts looks in dist/viewer/assets); the graph library is vendored from
// node_modules so the viewer works offline.
if (existsSync("src/viewer/assets")) cpSync("src/viewer/assets", "dist/viewer/assets", { recursive: true });
mkdirSync("dist/viewer/assets/vendor", { recursive: true });
cpSync("node_modules/cytoscape/dist/cytoscape.min.js", "dist/viewer/assets/vendor/cytoscape.min.js");
chmodSync("dist/bin.js", 0o755);

function jsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return jsFiles(path);
    return entry.name.endsWith(".js") ? [path] : [];
  });
}
