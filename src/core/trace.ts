import { writeErr } from "./stdio.js";

/**
 * CODEALMANAC_TRACE=1 prints where a command's time went (milliseconds since the process
 * started) to stderr when it exits. A diagnostic for performance work; silent otherwise.
 */
const enabled = process.env.CODEALMANAC_TRACE === "1";
const marks: [string, number][] = [];

export function trace(label: string): void {
  if (!enabled) return;
  if (marks.length === 0) {
    process.once("exit", () => {
      marks.push(["exit", performance.now()]);
      const lines = marks.map(([name, at]) => `  ${at.toFixed(1).padStart(7)} ms  ${name}`);
      writeErr(`codealmanac trace:\n${lines.join("\n")}\n`);
    });
  }
  marks.push([label, performance.now()]);
}
