import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const BIN = join(ROOT, "dist", "bin.js");
export const FAKE_BIN = join(ROOT, "test", "fixtures", "bin");

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  json<T = unknown>(): T;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  timeoutMs?: number;
  /** Run the CLI as another user (root only); see `asUnprivileged`. */
  user?: { uid: number; gid: number };
}

export interface Sandbox {
  /** A fresh directory for repositories and files of this test. */
  dir: string;
  home: string;
  state: string;
  env: NodeJS.ProcessEnv;
  run(args: string[], options?: RunOptions): RunResult;
  runAsync(args: string[], options?: { cwd?: string; env?: NodeJS.ProcessEnv }): Promise<RunResult>;
  cleanup(): void;
}

/** A private HOME and CODEALMANAC_HOME, with the fake agent CLIs first on PATH. */
export function sandbox(extraEnv: NodeJS.ProcessEnv = {}): Sandbox {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-sandbox-")));
  const home = join(dir, "home");
  const state = join(dir, "state");
  mkdirSync(home, { recursive: true });
  // A git identity, as a user's machine has one: a run's product commit (auto_commit) needs it.
  writeFileSync(join(home, ".gitconfig"), "[user]\n\tname = CodeAlmanac Test\n\temail = test@codealmanac.invalid\n");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    CODEALMANAC_HOME: state,
    // No test installs a schedule into this machine's real crontab or systemd by accident;
    // the automation tests choose a scheduler (and a fake one) explicitly.
    CODEALMANAC_SCHEDULER: "none",
    NO_COLOR: "1",
    PATH: `${FAKE_BIN}:${process.env.PATH ?? ""}`,
    ...extraEnv,
  };
  delete env.CODEALMANAC_TEST_HOOKS;
  const run: Sandbox["run"] = (args, options = {}) => {
    const result = spawnSync(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? dir,
      env: { ...env, ...(options.env ?? {}) },
      input: options.input ?? "",
      encoding: "utf8",
      timeout: options.timeoutMs ?? 60_000,
      ...(options.user ?? {}),
    });
    return wrap(result.status, result.signal, result.stdout, result.stderr);
  };
  const runAsync: Sandbox["runAsync"] = (args, options = {}) =>
    new Promise((resolvePromise) => {
      const child = spawn(process.execPath, [BIN, ...args], {
        cwd: options.cwd ?? dir,
        env: { ...env, ...(options.env ?? {}) },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("close", (code, signal) => resolvePromise(wrap(code, signal, stdout, stderr)));
    });
  return {
    dir,
    home,
    state,
    env,
    run,
    runAsync,
    cleanup: () => {
      killSandboxProcesses(state);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Kills every process still running for a sandbox (workers, executors, agents and their
 * children all inherit its CODEALMANAC_HOME), so a failing test never leaks processes.
 */
function killSandboxProcesses(state: string): void {
  if (process.platform !== "linux") return;
  const marker = `CODEALMANAC_HOME=${state}`;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(marker)) process.kill(Number(name), "SIGKILL");
    } catch {
      // gone, or not ours to read
    }
  }
}

function wrap(code: number | null, signal: NodeJS.Signals | null, stdout: string, stderr: string): RunResult {
  return {
    code,
    signal,
    stdout,
    stderr,
    json<T>() {
      try {
        return JSON.parse(stdout) as T;
      } catch {
        throw new Error(`stdout is not JSON (exit ${code}):\n${stdout}\nstderr:\n${stderr}`);
      }
    },
  };
}

export interface PageSpec {
  title?: string;
  summary?: string;
  topics?: string[];
  sources?: { id: string; type: string; [key: string]: string }[];
  body: string;
}

/** A page with front matter, written the way authors write it. */
export function page(spec: PageSpec): string {
  const lines = ["---"];
  if (spec.title !== undefined) lines.push(`title: ${spec.title}`);
  if (spec.summary !== undefined) lines.push(`summary: ${spec.summary}`);
  if (spec.topics !== undefined) lines.push(`topics: [${spec.topics.join(", ")}]`);
  if (spec.sources !== undefined) {
    if (spec.sources.length === 0) lines.push("sources: []");
    else {
      lines.push("sources:");
      for (const source of spec.sources) {
        const [first, ...rest] = Object.entries(source);
        lines.push(`  - ${first![0]}: ${first![1]}`);
        for (const [k, v] of rest) lines.push(`    ${k}: ${v}`);
      }
    }
  }
  lines.push("---", "", spec.body.trim(), "");
  return lines.join("\n");
}

/** Writes an initialized wiki: almanac/README.md, topics.yaml and the given pages (paths under almanac/). */
export function writeWiki(root: string, files: Record<string, string>, topicsYaml?: string): string {
  const almanac = join(root, "almanac");
  mkdirSync(almanac, { recursive: true });
  const all: Record<string, string> = {
    "README.md": page({ title: "Home", summary: "The landing page", topics: ["concepts"], sources: [], body: "# Home\n\nWelcome to the wiki." }),
    "topics.yaml": topicsYaml ?? "topics:\n  - slug: concepts\n    title: Concepts\n    parents: []\n",
    ...files,
  };
  for (const [rel, content] of Object.entries(all)) {
    const path = join(almanac, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  return root;
}

/** Makes `root` a git repository with everything in it committed (a fixed author, branch main). */
export function commitAll(root: string, message = "initial"): string {
  const env = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@x", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@x" };
  const git = (...args: string[]) => spawnSync("git", args, { cwd: root, env, stdio: "ignore" });
  if (git("rev-parse", "--git-dir").status !== 0) git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", message);
  return root;
}

export { waitFor } from "./wait.js";

/** The unprivileged account root tests run the CLI as (Debian's `nobody`). */
const NOBODY = { uid: 65534, gid: 65534 };

/**
 * A view of the sandbox whose CLI runs never have root's powers. Permission checks
 * (an unreadable page, say) cannot be provoked as root, so when the tests run as root
 * the sandbox is opened to an unprivileged user and every run switches to it; otherwise
 * the sandbox is returned as it is.
 */
export function asUnprivileged(box: Sandbox): Sandbox {
  if (process.getuid?.() !== 0) return box;
  openTree(box.dir);
  return { ...box, run: (args, options = {}) => box.run(args, { ...options, user: NOBODY }) };
}

/**
 * Why the tests cannot run the CLI as an unprivileged user here, or null when they can: as
 * root, `nobody` must be able to reach node and the built CLI, which a checkout under a
 * folder only root may enter (a home folder of mode 0700, say) does not allow. A test that
 * needs that user skips, with this reason, instead of failing for the machine's sake.
 */
export function unprivilegedUnavailable(): string | null {
  if (process.getuid?.() !== 0) return null;
  const probe = spawnSync(process.execPath, ["-e", `require("fs").accessSync(${JSON.stringify(BIN)}, require("fs").constants.R_OK)`], {
    ...NOBODY,
    encoding: "utf8",
  });
  if (probe.status === 0) return null;
  return `the unprivileged user (uid ${NOBODY.uid}) cannot read ${BIN} (${probe.error?.message ?? probe.stderr.trim().split("\n").find((line) => line.includes("Error")) ?? `exit ${probe.status}`}); clone the repository where that user can reach it to run this test`;
}

function openTree(path: string): void {
  chmodSync(path, statSync(path).isDirectory() ? 0o777 : 0o666);
  if (statSync(path).isDirectory()) for (const name of readdirSync(path)) openTree(join(path, name));
}
