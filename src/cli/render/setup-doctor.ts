import type { CliContext } from "../context.js";
import type { CheckStatus, DoctorReport } from "../../setup/model.js";
import type { Style } from "./style.js";

const MARKS: Record<CheckStatus, (s: Style) => string> = {
  ok: (s) => s.green("✓"),
  warn: (s) => s.yellow("!"),
  fail: (s) => s.red("✗"),
};

/** One line per check, its fix indented under it, then a one-line verdict. */
export function renderDoctor(ctx: CliContext, report: DoctorReport): void {
  const s = ctx.out;
  const width = Math.max(...report.checks.map((c) => c.key.length));
  const lines: string[] = [];
  for (const check of report.checks) {
    lines.push(`${MARKS[check.status](s)} ${check.key.padEnd(width)}  ${check.message}`);
    if (check.fix && check.status !== "ok") lines.push(`  ${" ".repeat(width)}  ${s.dim("fix:")} ${check.fix}`);
  }
  const failed = report.checks.filter((c) => c.status === "fail").length;
  const warned = report.checks.filter((c) => c.status === "warn").length;
  lines.push("", verdict(s, failed, warned));
  ctx.write(lines.join("\n") + "\n");
}

function verdict(s: Style, failed: number, warned: number): string {
  const warnings = `${warned} warning${warned === 1 ? "" : "s"}`;
  if (failed > 0) return s.red(`${failed} check${failed === 1 ? "" : "s"} failed`) + `, ${warnings}`;
  return s.green("no problems") + (warned > 0 ? `, ${warnings}` : "");
}
