import { basename } from "node:path";
import { trace } from "../core/trace.js";
import { colorFor, createStyle, type Style } from "./render/style.js";

export interface CliContext {
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The name the user typed (`ca` or `codealmanac`), shown back in syntax screens. */
  invokedAs: string;
  out: Style;
  err: Style;
  write(text: string): void;
  writeErr(text: string): void;
  json(value: unknown): void;
  exitCode: number;
}

export function createCliContext(argv: string[], env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): CliContext {
  const script = basename(process.argv[1] ?? "codealmanac");
  const ctx: CliContext = {
    argv,
    env,
    cwd,
    invokedAs: script === "ca" ? "ca" : "codealmanac",
    out: createStyle(colorFor(process.stdout, env)),
    err: createStyle(colorFor(process.stderr, env)),
    write: (text) => void process.stdout.write(text),
    writeErr: (text) => void process.stderr.write(text),
    json: (value) => {
      trace("result ready");
      process.stdout.write(JSON.stringify(value, null, 2) + "\n");
      trace("output written");
    },
    exitCode: 0,
  };
  return ctx;
}
