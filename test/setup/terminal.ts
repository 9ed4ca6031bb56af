import { spawn, spawnSync } from "node:child_process";
import { BIN } from "../support/cli.js";

/** util-linux `script` gives the CLI a pseudo-terminal, so the prompts run as they do for a person. */
export const HAS_SCRIPT = spawnSync("script", ["--version"], { stdio: "ignore" }).status === 0;

export interface Exchange {
  /** Text of the question to wait for (after the previous one). */
  expect: string;
  /** Keys to type once it shows: "\r" Enter, "\x1b[B" down, "y"/"n" for a confirmation. */
  keys: string;
  /** Done once it shows, after the keys: such as releasing a fake held until the screen says something. */
  then?: () => void;
}

export interface TerminalResult {
  code: number | null;
  output: string;
}

function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs `ca <args>` on a terminal and answers each question as it appears: keys are typed
 * only once the question's text is on the screen, never on a timer.
 */
export function onTerminal(args: string[], env: NodeJS.ProcessEnv, exchanges: Exchange[]): Promise<TerminalResult> {
  const command = `stty cols 200 rows 50; exec ${[process.execPath, BIN, ...args].map(quote).join(" ")}`;
  const child = spawn("script", ["-qec", command, "/dev/null"], { env, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  let seen = 0;
  let step = 0;
  const answer = () => {
    while (step < exchanges.length) {
      const at = output.indexOf(exchanges[step]!.expect, seen);
      if (at < 0) return;
      seen = at + exchanges[step]!.expect.length;
      child.stdin.write(exchanges[step]!.keys);
      exchanges[step]!.then?.();
      step++;
    }
  };
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
    answer();
  });
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  return new Promise((resolve, reject) => {
    // No deadline of its own (the test's timeout bounds it); a long wait says where it is.
    const report = setInterval(() => {
      process.stderr.write(`[test] still at question ${step + 1} of ${exchanges.length}; screen so far:\n${output}\n`);
    }, 30_000);
    child.on("close", (code) => {
      clearInterval(report);
      child.stdin.destroy();
      if (step < exchanges.length) reject(new Error(`exited (${code}) before question ${step + 1}: ${exchanges[step]!.expect}\n${output}`));
      else resolve({ code, output });
    });
  });
}
