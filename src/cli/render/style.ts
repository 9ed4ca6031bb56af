export interface Style {
  enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  blue(text: string): string;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
}

const BLUE = "\x1b[38;5;75m";
const GREEN = "\x1b[38;5;35m";
const RED = "\x1b[38;5;167m";
const YELLOW = "\x1b[33m";
const RESET_FG = "\x1b[39m";
const BOLD = "\x1b[1m";
const DIM = "\x1b[2m";
/** Ends bold and dim alike: a bold or dim text that holds one turns its own weight back on after it. */
const NORMAL_WEIGHT = "\x1b[22m";

// Written here rather than taken from a colour library: the usual ones look at
// `process.stdout` when they load, which makes the stream (and, for a pipe, loads `net`)
// in every command; see src/core/stdio.ts.
export function createStyle(enabled: boolean): Style {
  const plain = (text: string) => text;
  const colour = (open: string) => (enabled ? (text: string) => `${open}${text}${RESET_FG}` : plain);
  const weight = (open: string) =>
    enabled ? (text: string) => `${open}${text.split(NORMAL_WEIGHT).join(NORMAL_WEIGHT + open)}${NORMAL_WEIGHT}` : plain;
  return {
    enabled,
    bold: weight(BOLD),
    dim: weight(DIM),
    blue: colour(BLUE),
    green: colour(GREEN),
    red: colour(RED),
    yellow: colour(YELLOW),
  };
}

/** Colour only for a terminal, and never when NO_COLOR is present (even empty). */
export function colorFor(terminal: boolean, env: NodeJS.ProcessEnv): boolean {
  return terminal && env.NO_COLOR === undefined;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

export function visibleWidth(text: string): number {
  return [...text.replace(ANSI, "")].length;
}
