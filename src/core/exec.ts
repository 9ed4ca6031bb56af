/**
 * The command-runner adapter (see core/command.ts): spawns a helper command with a
 * hard timeout and an output cap, and never throws for the command's own failures.
 */
import { spawn } from "node:child_process";
import type { CommandRequest, CommandResult, CommandRunner } from "./command.js";

const DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024;
const STDERR_LIMIT = 64 * 1024;

export const runCommand: CommandRunner = (file: string, args: string[], request: CommandRequest) =>
  new Promise<CommandResult>((resolvePromise) => {
    const maxOutput = request.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = "";
    let truncated = false;
    let timedOut = false;
    let settled = false;
    const child = spawn(file, args, {
      cwd: request.cwd,
      env: request.env ?? process.env,
      stdio: [request.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      windowsHide: true,
    });
    const finish = (result: Partial<CommandResult>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const bytes = Buffer.concat(stdout);
      resolvePromise({
        code: null,
        signal: null,
        stdout: request.binary === true ? "" : bytes.toString("utf8"),
        ...(request.binary === true ? { stdoutBytes: bytes } : {}),
        stderr,
        timedOut,
        truncated,
        notFound: false,
        ...result,
      });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, request.timeoutMs);
    child.stdout!.on("data", (chunk: Buffer) => {
      if (stdoutBytes >= maxOutput) {
        truncated = true;
        return;
      }
      const room = maxOutput - stdoutBytes;
      if (chunk.length > room) {
        truncated = true;
        chunk = chunk.subarray(0, room);
      }
      stdout.push(chunk);
      stdoutBytes += chunk.length;
    });
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      if (stderr.length < STDERR_LIMIT) stderr += chunk;
    });
    if (request.input !== undefined) {
      child.stdin!.on("error", () => undefined);
      child.stdin!.end(request.input, "utf8");
    }
    child.on("error", (error: NodeJS.ErrnoException) => {
      finish({ notFound: error.code === "ENOENT", stderr: stderr || error.message });
    });
    child.on("close", (code, signal) => finish({ code: timedOut ? null : code, signal }));
  });
