// Bundles the CLI into dist/ with esbuild. Code splitting keeps start-up fast:
// dist/bin.js is tiny and every command loads its own chunk lazily.
import { build } from "esbuild";
import { readFileSync, rmSync, mkdirSync, cpSync, chmodSync } from "node:fs";

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
  external: ["better-sqlite3"],
  define: { __CODEALMANAC_VERSION__: JSON.stringify(pkg.version) },
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __caCreateRequire } from 'node:module'; const require = __caCreateRequire(import.meta.url);",
  },
  logLevel: "warning",
});

cpSync("src/wiki/manual", "dist/manual", { recursive: true });
chmodSync("dist/bin.js", 0o755);
