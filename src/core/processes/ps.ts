import { execFileSync } from "node:child_process";
import { isPlainPid, type ExecutionMarker, type ProcessBackend, type ProcessInfo } from "./backend.js";

/**
 * The macOS backend: everything comes from `/bin/ps` (Apple's adv_cmds), because
 * macOS has no /proc. What `ps` can and cannot tell is written down in
 * almanac/architecture/core.md ("Processes on macOS").
 *
 * Every call is one `ps` process, so callers that need many pids ask once:
 * `lookup` reads all of them with one `-p a,b,c`, `list` the whole table with one
 * `-A`, and `carryingMarker` every candidate's environment with one `-E`.
 */
export interface PsBackendOptions {
  /** The `ps` to run; the default is the one on PATH. */
  command?: string;
  /** The environment it runs in (PATH finds `command`); LC_ALL, LANG and TZ are always fixed. */
  env?: NodeJS.ProcessEnv;
}

const COLUMNS = "pid=,ppid=,pgid=,state=,lstart=";

export function createPsBackend(options: PsBackendOptions = {}): ProcessBackend {
  // A fixed locale and time zone make `lstart` the same string whichever environment
  // (launchd, a login shell, a test) asks, so it can be compared exactly.
  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env), LC_ALL: "C", LANG: "C", TZ: "UTC" };
  const run = (args: string[]): string | null => runPs(options.command ?? "ps", args, env);

  const rowsOf = (pids: readonly number[]): Map<number, ProcessInfo> => {
    const wanted = new Set(pids.filter(isPlainPid));
    const rows = new Map<number, ProcessInfo>();
    if (wanted.size === 0) return rows;
    // `-ww`: never cut a line to the terminal's width.
    const stdout = run(["-ww", "-o", COLUMNS, "-p", [...wanted].join(",")]);
    for (const info of parsePsTable(stdout ?? "")) if (wanted.has(info.pid)) rows.set(info.pid, info);
    return rows;
  };

  return {
    readInfo: (pid) => rowsOf([pid]).get(pid) ?? null,

    lookup(pids) {
      const rows = rowsOf(pids);
      return (pid) => rows.get(pid) ?? null;
    },

    list() {
      const stdout = run(["-A", "-ww", "-o", COLUMNS]);
      if (stdout === null) throw new Error("could not list processes with ps");
      return parsePsTable(stdout);
    },

    // A variable's value cannot be cut out of `ps -E` reliably (entries are joined by
    // spaces, and values may contain spaces); only the exact marker is looked for.
    readEnviron: () => null,

    carryingMarker(pids, marker) {
      const wanted = new Set(pids.filter(isPlainPid));
      const found = new Set<number>();
      if (wanted.size === 0 || !isSearchableMarker(marker)) return found;
      const stdout = run(["-E", "-ww", "-o", "pid=,command=", "-p", [...wanted].join(",")]);
      for (const line of (stdout ?? "").split("\n")) {
        const hit = parseEnvironLine(line, marker);
        if (hit !== null && wanted.has(hit)) found.add(hit);
      }
      return found;
    },
  };
}

/**
 * Runs `ps`; its stdout, or null when it printed nothing usable. Apple's `ps` exits 1
 * when no pid matched (and 0 when at least one did); whatever it printed is still read.
 * A missing `ps` is a broken system, not an absent process, so ENOENT is thrown.
 */
function runPs(command: string, args: string[], env: NodeJS.ProcessEnv): string | null {
  try {
    return execFileSync(command, args, { encoding: "utf8", env, stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stdout?: unknown; status?: number | null };
    if (failure.code === "ENOENT") throw error;
    return failure.status === 1 && typeof failure.stdout === "string" ? failure.stdout : null;
  }
}

/** Every row of `ps -o pid=,ppid=,pgid=,state=,lstart=` output; lines that do not parse are skipped. */
export function parsePsTable(stdout: string): ProcessInfo[] {
  const rows: ProcessInfo[] = [];
  for (const line of stdout.split("\n")) {
    const info = parsePsLine(line);
    if (info !== null) rows.push(info);
  }
  return rows;
}

/**
 * Parses one line of `ps -o pid=,ppid=,pgid=,state=,lstart=`, for instance
 * `  812     1   812 Ss   Tue Dec  1 21:15:38 2026`. The state is one word of
 * letters and flags (`Ss`, `R+`, `Z`, `U<`); `lstart` is the last five words.
 */
export function parsePsLine(line: string): ProcessInfo | null {
  const tokens = line.trim().split(/\s+/);
  if (tokens.length !== 9) return null;
  const [pidText, ppidText, pgidText, state] = tokens;
  if (![pidText, ppidText, pgidText].every((t) => t !== undefined && /^\d+$/.test(t))) return null;
  const pid = Number(pidText);
  const ppid = Number(ppidText);
  const pgid = Number(pgidText);
  if (!isPlainPid(pid) || !Number.isSafeInteger(ppid) || !Number.isSafeInteger(pgid)) return null;
  if (state === undefined || !/^[A-Za-z][A-Za-z+<>]*$/.test(state)) return null;
  const startTime = normalizeLstart(tokens.slice(4).join(" "));
  if (!LSTART.test(startTime)) return null;
  return { pid, ppid, pgid, state, startTime };
}

/** `%c` in the C locale: weekday, month, day, time, year. */
const LSTART = /^[A-Z][a-z]{2} [A-Z][a-z]{2} \d{1,2} \d{2}:\d{2}:\d{2} \d{4}$/;

/** `ps` pads single-digit days ("Dec  1"); collapse runs of spaces so values compare exactly. */
export function normalizeLstart(text: string): string {
  return text.trim().replace(/\s+/g, " ");
}

/**
 * Only a marker that `ps -E` prints as itself can be found: `ps` escapes tabs, newlines
 * and non-printing characters, and joins entries with spaces.
 */
function isSearchableMarker(marker: ExecutionMarker): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(marker.key) && /^[\x21-\x7e]+$/.test(marker.value);
}

/**
 * The pid of one line of `ps -E -o pid=,command=` if its text holds `KEY=value` as a
 * whole word. The text is the arguments and then, for our own user's processes, the
 * initial environment, all joined by spaces: an argument spelled exactly like the
 * marker would match too (see core.md on what that costs).
 */
export function parseEnvironLine(line: string, marker: ExecutionMarker): number | null {
  const match = /^\s*(\d+)\s(.*)$/.exec(line);
  if (match === null) return null;
  const pid = Number(match[1]);
  if (!isPlainPid(pid)) return null;
  const words = (match[2] ?? "").split(/\s+/);
  return words.includes(`${marker.key}=${marker.value}`) ? pid : null;
}

/** The backend with the `ps` on this process's PATH (the Unixes other than Linux and macOS). */
export const psBackend: ProcessBackend = createPsBackend();

/**
 * macOS's own `ps`, by its path: a scheduler's minimal PATH, or another `ps` earlier on
 * the user's PATH (procps from a package manager), must not change what is compared.
 */
export const macosBackend: ProcessBackend = createPsBackend({ command: "/bin/ps" });
