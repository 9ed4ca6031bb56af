import type { Token } from "./markdown.js";

const ID = "[A-Za-z0-9][A-Za-z0-9_.:-]*";
/** `[@a]`, and the grouped forms `[@a; @b]` and `[@a, @b]`. */
export const CITATION = new RegExp(`\\[@${ID}(?:\\s*[;,]\\s*@${ID})*\\s*\\]`, "g");
/** One id inside a citation, captured. */
export const CITED_ID = new RegExp(`@(${ID})`, "g");

/**
 * Cited source ids in first-appearance order. Only prose counts: code spans and
 * code blocks are never inline text, and an escaped `\[` breaks a citation.
 */
export function citationsOf(tokens: readonly Token[]): string[] {
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.type !== "inline" || !token.children) continue;
    for (const run of proseRuns(token.children)) {
      if (!run.includes("[@")) continue;
      for (const match of run.matchAll(CITATION)) {
        for (const id of match[0].matchAll(CITED_ID)) seen.add(id[1] ?? "");
      }
    }
  }
  seen.delete("");
  return [...seen];
}

/** Adjacent text pieces joined, because markdown-it splits text at `[` and `]`. */
function proseRuns(children: readonly Token[]): string[] {
  const runs: string[] = [];
  let run = "";
  const flush = () => {
    if (run !== "") runs.push(run);
    run = "";
  };
  for (const child of children) {
    if (child.type === "text") run += child.content;
    else if (child.type === "text_special" && child.info === "entity") run += child.content;
    else if (child.type === "softbreak" || child.type === "hardbreak") run += "\n";
    else flush();
  }
  flush();
  return runs;
}
