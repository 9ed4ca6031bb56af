import pc from "picocolors";

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
const RESET_FG = "\x1b[39m";

export function createStyle(enabled: boolean): Style {
  const colors = pc.createColors(enabled);
  const wrap = (open: string) => (text: string) => (enabled ? `${open}${text}${RESET_FG}` : text);
  return {
    enabled,
    bold: colors.bold,
    dim: colors.dim,
    blue: wrap(BLUE),
    green: wrap(GREEN),
    red: wrap(RED),
    yellow: colors.yellow,
  };
}

/** Colour only for a terminal, and never when NO_COLOR is present (even empty). */
export function colorFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && env.NO_COLOR === undefined;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

export function visibleWidth(text: string): number {
  return [...text.replace(ANSI, "")].length;
}
