/**
 * Shared pieces of the real-CLI tests: whether a pinned agent CLI can run here, a sandbox
 * whose `ca` finds the real CLI (not the fake) on PATH, and a census of the processes a
 * sandbox left behind.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { FAKE_BIN, ROOT, commitAll, sandbox, waitFor, writeWiki, type Sandbox } from "../support/cli.js";
import { AGENT_SUBCOMMANDS } from "../../src/lifecycle/agent-tools.js";

export const REAL_BIN = join(ROOT, "node_modules", ".bin");

export interface Probe {
  /** Set only when the binary genuinely cannot run on this platform: the suite is skipped. */
  skip: string | null;
  /** Set when it should run but does not (not installed, wrong version): the suite fails with this. */
  broken: string | null;
}

export interface CliPackage {
  /** The executable in node_modules/.bin. */
  bin: string;
  /** The npm package, e.g. `@anthropic-ai/claude-code`. */
  name: string;
  /** The pinned version and how `--version` prints it. */
  version: string;
  versionLine: (output: string) => boolean;
  /** The optional dependency holding the native binary for a platform key. */
  nativePackage: (platform: string) => string;
  env?: NodeJS.ProcessEnv;
}

/** Platform keys as the packages name them (`linux-x64`, `linux-x64-musl`, `darwin-arm64`). */
function platformKey(musl: boolean): string {
  if (process.platform !== "linux") return `${process.platform}-${process.arch}`;
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return `linux-${process.arch}${musl && header?.glibcVersionRuntime === undefined ? "-musl" : ""}`;
}

export function probeCli(pkg: CliPackage, options: { musl: boolean }): Probe {
  const manifest = join(ROOT, "node_modules", ...pkg.name.split("/"), "package.json");
  if (existsSync(manifest)) {
    const optional = Object.keys((JSON.parse(readFileSync(manifest, "utf8")) as { optionalDependencies?: Record<string, string> }).optionalDependencies ?? {});
    const wanted = pkg.nativePackage(platformKey(options.musl));
    if (!optional.includes(wanted)) return { skip: `${pkg.name} ships no native binary for ${platformKey(options.musl)}`, broken: null };
  }
  const bin = join(REAL_BIN, pkg.bin);
  if (!existsSync(bin)) return { skip: null, broken: `${bin} is missing: run \`npm ci\` (devDependency ${pkg.name})` };
  const run = spawnSync(bin, ["--version"], { encoding: "utf8", timeout: 20_000, env: { ...process.env, ...pkg.env } });
  const code = (run.error as NodeJS.ErrnoException | undefined)?.code;
  // The OS refused to execute it, or it died on a signal (e.g. SIGILL on a CPU without AVX).
  if (code === "ENOEXEC" || code === "EACCES" || code === "EBADARCH" || (run.signal && run.signal !== "SIGTERM")) {
    return { skip: `the ${pkg.bin} binary cannot run here (${code ?? run.signal})`, broken: null };
  }
  const output = `${run.stdout ?? ""}${run.stderr ?? ""}`.trim();
  if (/GLIBC_|GLIBCXX_|cannot execute binary file|Exec format error|error while loading shared libraries/.test(output)) {
    return { skip: `the ${pkg.bin} binary cannot run here: ${output.split("\n")[0]}`, broken: null };
  }
  if (!pkg.versionLine(run.stdout ?? "")) {
    return {
      skip: null,
      broken: `\`${pkg.bin} --version\` gave ${JSON.stringify((run.stdout ?? "").trim())} (exit ${run.status ?? run.signal ?? code}); expected ${pkg.version} — run \`npm ci\``,
    };
  }
  return { skip: null, broken: null };
}

/**
 * A sandbox whose `ca` finds the real CLIs first on PATH and never the fakes, with the
 * caller's own agent and proxy settings removed so nothing leaks in.
 */
export function realSandbox(extra: NodeJS.ProcessEnv): Sandbox {
  const box = sandbox();
  const env = box.env;
  for (const key of Object.keys(env)) {
    if (/^(ANTHROPIC_|CLAUDE_|CLAUDECODE$|FAKE_|OPENAI_|CODEX_|AWS_|GOOGLE_|VERTEX_)/i.test(key)) delete env[key];
    if (/^(https?|all)_proxy$/i.test(key)) delete env[key];
  }
  const path = (process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "" && dir !== FAKE_BIN);
  Object.assign(env, { PATH: [REAL_BIN, ...path].join(delimiter), NO_PROXY: "127.0.0.1,localhost" }, extra);
  return box;
}

/** The same PATH without any folder holding the named executable (the real or the fake one). */
export function pathWithout(box: Sandbox, executable: string): string {
  return (box.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir !== "" && !existsSync(join(dir, executable)))
    .join(delimiter);
}

/** A git repository at `<sandbox>/repo` with an initialized wiki and a notes file to ingest, all committed. */
export function repoWithNotes(box: Sandbox, notes = "# Notes\n\nThe quetzalcoatl queue drains first in, first out.\n"): string {
  const root = writeWiki(join(box.dir, "repo"), {});
  writeFileSync(join(root, "notes.md"), notes);
  return commitAll(root);
}

/** Sets `runs.timeout` for every run of the sandbox, through the test knob: config.toml takes a minute at least. */
export function runTimeout(box: Sandbox, timeoutMs: number): void {
  box.env.CODEALMANAC_TEST_RUN_LIMITS = JSON.stringify({ runTimeoutMs: timeoutMs });
}

/** Live (not zombie) processes started for this sandbox: they all inherit its CODEALMANAC_HOME. */
export function sandboxProcesses(box: Sandbox): string[] {
  if (process.platform !== "linux") return [];
  const marker = `CODEALMANAC_HOME=${box.state}`;
  const found: string[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(marker)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 1).trim())) continue;
      found.push(`${name} ${readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ").trim()}`);
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/**
 * Waits until the sandbox has no live process left (the event), naming what is still alive
 * while it waits, and returns what is left: nothing, once it resolves.
 */
export async function settledProcesses(box: Sandbox): Promise<string[]> {
  await waitFor(() => sandboxProcesses(box).length === 0, () => `the sandbox's processes to exit: ${sandboxProcesses(box).join("; ")}`);
  return sandboxProcesses(box);
}

export type { JobRecord } from "../queue/support.js";

export interface LogEntry {
  kind: string;
  title: string;
  body?: string;
  tool?: string;
  status?: string;
  target?: string;
  input?: string;
  error: boolean;
}

/** The pinned Claude Code devDependency, probed once per test file. */
export const CLAUDE_VERSION = "2.1.332";

export function probeClaude(): Probe {
  return probeCli(
    {
      bin: "claude",
      name: "@anthropic-ai/claude-code",
      version: CLAUDE_VERSION,
      versionLine: (output) => output.startsWith(`${CLAUDE_VERSION} `),
      nativePackage: (platform) => `@anthropic-ai/claude-code-${platform}`,
      env: { CLAUDECODE: "" },
    },
    { musl: true },
  );
}

/** Keeps the real Claude Code offline and quiet: no telemetry, error reports, update checks or other traffic. */
export const OFFLINE_CLAUDE_ENV: NodeJS.ProcessEnv = {
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  DISABLE_AUTOUPDATER: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
};

/**
 * One command for each CodeAlmanac subcommand a run's prompt names, and a text its output must
 * show, for a page with `slug` whose lead carries `word`. A subcommand added to the prompt
 * without a check here fails every real-CLI suite, so a permission cannot go untested.
 */
export function permittedCommands(slug: string, word: string): { command: string; shows: string }[] {
  const checks: Record<string, { command: string; shows: string }> = {
    validate: { command: "codealmanac validate", shows: "validate: ok" },
    search: { command: `codealmanac search ${word} --slugs`, shows: slug },
    show: { command: `codealmanac show ${slug} --lead`, shows: word },
  };
  return AGENT_SUBCOMMANDS.map((sub) => {
    const check = checks[sub];
    if (!check) throw new Error(`no real-CLI check for \`codealmanac ${sub}\`: add one to permittedCommands`);
    return check;
  });
}

/** What git says about the product's commit of a run: its subject, the files in it, and what is still staged. */
export function committed(root: string): { subject: string; files: string[]; staged: string[] } {
  const git = (...args: string[]) => spawnSync("git", args, { cwd: root, encoding: "utf8" }).stdout.trim();
  return {
    subject: git("log", "-1", "--format=%s"),
    files: git("show", "--name-only", "--format=", "HEAD").split("\n").filter(Boolean),
    staged: git("diff", "--cached", "--name-only").split("\n").filter(Boolean),
  };
}

/** A file the user staged outside almanac/ before the run (it must stay staged and out of the run's commit). */
export function stageUserFile(root: string, path = "src/staged.ts"): string {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), "the user's staged work\n");
  spawnSync("git", ["add", path], { cwd: root });
  return path;
}

/** Every string in a request body, joined: the prompt as the model got it, whatever the API's message shape. */
export function requestText(body: string): string {
  const strings: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") strings.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(JSON.parse(body));
  return strings.join("\n");
}

/** A page citing line 3 of the notes `repoWithNotes` writes, for the evidence stamp. */
export function pageCitingNotes(title: string, marker: string): string {
  return [
    "---",
    `title: ${title}`,
    `summary: A page written by the real CLI, citing the notes.`,
    "topics: [concepts]",
    "sources:",
    "  - {id: notes, type: file, path: notes.md, lines: 3}",
    "---",
    "",
    `# ${title}`,
    "",
    `The ${marker} marker proves this page came from a real tool call; the queue drains first in, first out [@notes].`,
    "",
  ].join("\n");
}

/**
 * A git repository with two pages, each citing its own file, whose cited code then changed
 * under one of them (in a later commit): `garden --stale` must give the agent that page alone.
 */
export function repoWithStalePage(box: Sandbox): { root: string; verified: string; stale: string; fresh: string } {
  const page = (title: string, path: string) =>
    ["---", `title: ${title}`, "topics: [concepts]", "sources:", `  - {id: code, type: file, path: ${path}, lines: 2}`, "---", "", `# ${title}`, "", `Its second line holds the constant [@code].`, ""].join("\n");
  const root = writeWiki(join(box.dir, "repo"), { "concepts/alpaca.md": page("Alpaca", "src/alpaca.ts"), "concepts/okapi.md": page("Okapi", "src/okapi.ts") });
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src", "alpaca.ts"), "export const first = 1;\nexport const alpacaLimit = 2;\n");
  writeFileSync(join(root, "src", "okapi.ts"), "export const first = 1;\nexport const okapiLimit = 2;\n");
  commitAll(root);
  const verified = spawnSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).stdout.trim();
  writeFileSync(join(root, "src", "alpaca.ts"), "export const first = 1;\nexport const alpacaLimit = 20;\n");
  commitAll(root, "raise the limit");
  return { root, verified, stale: "concepts/alpaca", fresh: "concepts/okapi" };
}
