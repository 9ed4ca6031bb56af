import { formatCount } from "./text.js";

/**
 * Splits a character budget fairly: every source may use an equal share, and what a
 * small source leaves unused is shared again among the larger ones (max-min fairness).
 * The shares never add up to more than the budget.
 */
export function fairShares(lengths: number[], budget: number): number[] {
  const shares = lengths.map(() => 0);
  let remaining = Math.max(0, Math.floor(budget));
  let open = lengths.map((_, index) => index);
  while (open.length > 0) {
    const share = Math.floor(remaining / open.length);
    const fitting = open.filter((index) => lengths[index]! <= share);
    if (fitting.length === 0) {
      let spare = remaining - share * open.length;
      for (const index of open) shares[index] = share + (spare-- > 0 ? 1 : 0);
      break;
    }
    for (const index of fitting) {
      shares[index] = lengths[index]!;
      remaining -= lengths[index]!;
    }
    open = open.filter((index) => lengths[index]! > share);
  }
  return shares;
}

export type CutStyle = "head" | "ends";

/**
 * Cuts text to at most `limit` characters, at a line break when one is near, leaving a
 * marker where text was taken out: at the end (`head`), or in the middle so the start
 * and the end both stay (`ends`). Returns "" when not even the marker fits.
 */
export function cutText(text: string, limit: number, style: CutStyle, whereTheRestIs: string): string {
  if (text.length <= limit) return text;
  const marker = (omitted: number) => `\n\n[… ${formatCount(omitted)} characters cut here; the whole material is in ${whereTheRestIs} …]\n\n`;
  const room = limit - marker(text.length).length;
  if (room <= 0) return "";
  if (style === "head") {
    const head = snapEnd(text.slice(0, room));
    return head + marker(text.length - head.length);
  }
  const head = snapEnd(text.slice(0, Math.floor(room / 2)));
  const tail = snapStart(text.slice(text.length - (room - Math.floor(room / 2))));
  return head + marker(text.length - head.length - tail.length) + tail;
}

/** Ends the kept start at its last line break, unless that would give up more than a fifth. */
function snapEnd(kept: string): string {
  const lastBreak = kept.lastIndexOf("\n");
  return lastBreak >= kept.length * 0.8 ? kept.slice(0, lastBreak) : kept;
}

function snapStart(kept: string): string {
  const firstBreak = kept.indexOf("\n");
  return firstBreak !== -1 && firstBreak <= kept.length * 0.2 ? kept.slice(firstBreak + 1) : kept;
}
