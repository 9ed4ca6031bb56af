import { basename } from "node:path";
import { isTerminal, terminalColumns, writeErr, writeOut } from "../core/stdio.js";
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
  /**
   * Whether stderr is a terminal, and its width: progress (the follower's status line) is
   * drawn in place there. Colour (`err`) also depends on NO_COLOR; this does not.
   */
  errTerminal: { isTTY: boolean; columns(): number | undefined };
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
    out: createStyle(colorFor(isTerminal(1), env)),
    err: createStyle(colorFor(isTerminal(2), env)),
    errTerminal: { isTTY: isTerminal(2), columns: () => terminalColumns(2) },
    write: writeOut,
    writeErr,
    json: (value) => {
      trace("result ready");
      writeOut(JSON.stringify(value, null, 2) + "\n");
      trace("output written");
    },
    exitCode: 0,
  };
  return ctx;
}
