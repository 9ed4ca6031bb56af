// Bundles the CLI into dist/ with esbuild. Code splitting keeps start-up fast:
// dist/bin.js is tiny and every command loads its own chunk lazily.
import { build } from "esbuild";
import { readFileSync, rmSync, mkdirSync, cpSync, chmodSync } from "node:fs";

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

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
rmSync("dist", { recursive: true, force: true });
mkdirSync("dist", { recursive: true });

await build({
  entryPoints: { bin: "src/bin.ts", "parse-worker": "src/index/parse-worker.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: "linked",
  chunkNames: "chunks/[name]-[hash]",
  // better-sqlite3's JavaScript is bundled (loading it as a package costs a CommonJS
  // detour on every start); its addon is loaded by path (src/core/sqlite.ts), so the
  // package's own addon finder is never needed.
  external: ["bindings"],
  define: { __CODEALMANAC_VERSION__: JSON.stringify(pkg.version) },
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __caCreateRequire } from 'node:module'; const require = __caCreateRequire(import.meta.url);",
  },
  plugins: [lazyChildProcess],
  logLevel: "warning",
});

cpSync("src/wiki/manual", "dist/manual", { recursive: true });
chmodSync("dist/bin.js", 0o755);
