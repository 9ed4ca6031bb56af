import type { ExitInfo } from "./ports.js";

export function describeExit(exit: ExitInfo): string {
  if (exit.signal) return `was killed by ${exit.signal}`;
  if (exit.code !== null) return `exited with code ${exit.code}`;
  return "exited";
}

export function humanSpan(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
