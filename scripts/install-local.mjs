#!/usr/bin/env node
// `npm run install-local`: installs this checkout globally as a copy, the way a user gets the
// published package. `npm install -g .` would link the global `ca` to the clone instead, so
// the next `npm ci` or build (the README's test command) would change or break it.
// `npm pack` builds first (the prepack script); arguments go to `npm install`
// (`npm run install-local -- --prefix ~/.local`).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "ca-install-"));
try {
  const tarball = join(scratch, npm(["pack", "--silent", "--pack-destination", scratch], "pipe").trim().split("\n").pop());
  // npm 11.16+ asks for install scripts to be approved, and npm 12 skips the others: better-sqlite3's builds its addon.
  npm(["install", "--global", "--no-audit", "--no-fund", "--allow-scripts=better-sqlite3", ...process.argv.slice(2), tarball], "inherit");
} catch (error) {
  process.stderr.write(`install-local: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

function npm(args, stdout) {
  const result = spawnSync("npm", args, { cwd: root, encoding: "utf8", shell: process.platform === "win32", stdio: ["ignore", stdout, "inherit"] });
  if (result.status !== 0) throw new Error(`npm ${args[0]} failed (exit ${result.status ?? result.signal})`);
  return result.stdout ?? "";
}
