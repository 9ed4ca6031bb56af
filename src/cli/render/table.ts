import { visibleWidth, type Style } from "./style.js";

/** Columns padded to the widest visible cell, two spaces apart, trailing spaces trimmed. */
export function renderTable(header: string[] | null, rows: string[][], style: Style): string {
  const all = header ? [header, ...rows] : rows;
  const widths: number[] = [];
  for (const row of all) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visibleWidth(cell))));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - visibleWidth(cell))))
      .join("  ")
      .replace(/\s+$/, "");
  const out: string[] = [];
  if (header) out.push(style.bold(style.blue(line(header))));
  for (const row of rows) out.push(line(row));
  return out.join("\n") + "\n";
}

/** `label:` dimmed and padded so values line up at a fixed column. */
export function labelled(label: string, value: string, column: number, style: Style): string {
  const text = `${label}:`;
  return `${style.dim(text)}${" ".repeat(Math.max(1, column - text.length))}${value}`;
}
