import type { CliContext } from "../context.js";
import type { Receipt } from "../../queue/producer.js";
import { terminalColumns } from "../../core/stdio.js";
import { visibleWidth } from "./style.js";

const HEADLINES: Record<string, string> = {
  build: "Building your CodeAlmanac in the background",
  ingest: "Adding knowledge to your CodeAlmanac in the background",
  garden: "Improving your CodeAlmanac in the background",
};

/** `detail`: one more line about what was queued (the stale pages of `garden --stale`). */
export function renderReceipt(ctx: CliContext, receipt: Receipt, kind: string, detail?: string): void {
  const s = ctx.out;
  const box = roundedBox(
    ctx,
    [
      "Follow progress in the terminal:",
      s.blue(`  codealmanac jobs attach ${receipt.run_id}`),
      "or list everything with:",
      s.blue("  codealmanac jobs"),
    ],
  );
  const ahead = receipt.runs_ahead > 0 ? ` · ${receipt.runs_ahead} ahead in the queue` : "";
  ctx.write(
    [
      `${s.blue("◆")} ${s.bold(HEADLINES[kind] ?? "Queued")}`,
      "",
      ...box,
      "",
      s.dim(`  Job: ${receipt.run_id} · Repo: ${receipt.repository}${ahead}`),
      ...(detail !== undefined ? [s.dim(`  ${detail}`)] : []),
      "",
    ].join("\n"),
  );
}

function roundedBox(ctx: CliContext, lines: string[]): string[] {
  const s = ctx.out;
  const columns = terminalColumns(1) ?? 80;
  const inner = Math.max(Math.max(...lines.map(visibleWidth)) + 2, Math.min(62, columns - 6));
  const border = (t: string) => s.dim(s.blue(t));
  return [
    border(`╭${"─".repeat(inner)}╮`),
    ...lines.map((l) => `${border("│")} ${l}${" ".repeat(inner - 1 - visibleWidth(l))}${border("│")}`),
    border(`╰${"─".repeat(inner)}╯`),
  ];
}
