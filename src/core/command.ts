/**
 * The port for running a short-lived helper command (git, gh, an agent CLI's --version)
 * and collecting its output. The adapter is `core/exec.ts`; app.ts hands it to the
 * services that need one, so they never import child_process themselves.
 */
export interface CommandRequest {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; stdin is closed at once when absent. */
  input?: string;
  /** The command is killed (SIGKILL) after this long and the result says `timedOut`. */
  timeoutMs: number;
  /** stdout beyond this many bytes is dropped and the result says `truncated`. Default 16 MiB. */
  maxOutputBytes?: number;
  /** Keep stdout as bytes in `stdoutBytes` (and leave `stdout` empty): for output that counts bytes, like `git cat-file --batch`. */
  binary?: boolean;
}

export interface CommandResult {
  /** Exit code, or null when it ended on a signal, timed out or could not start. */
  code: number | null;
  signal: string | null;
  stdout: string;
  /** stdout as bytes, when the request asked for `binary`. */
  stdoutBytes?: Buffer;
  stderr: string;
  timedOut: boolean;
  /** stdout went over `maxOutputBytes` and was cut there. */
  truncated: boolean;
  /** The executable was not found (ENOENT). */
  notFound: boolean;
}

export type CommandRunner = (file: string, args: string[], request: CommandRequest) => Promise<CommandResult>;

/**
 * Variables that would point git somewhere other than its cwd: a `ca` started from a git
 * hook inherits GIT_DIR and friends, and must still read the repository it was asked about.
 */
const GIT_LOCATION_VARIABLES = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_PREFIX"];

/** The environment for a git command whose output is parsed: no location overrides, prompts, pager or optional locks. */
export function gitEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = { ...env, GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0", GIT_PAGER: "cat" };
  for (const name of GIT_LOCATION_VARIABLES) delete clean[name];
  return clean;
}

/** First non-blank line of a command's stderr, else stdout, clipped for a one-line message. */
export function commandFailureLine(result: CommandResult, limit = 500): string {
  const text = `${result.stderr}\n${result.stdout}`;
  const line = text.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== "") ?? "";
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}
