/**
 * The history walk, kept beside the wiki's index as the raw `git log` text of the commit it
 * was read at. When HEAD has moved on from that commit, only the new commits are walked and
 * put in front (they come first in a topological order, since none is an ancestor of the
 * old HEAD); a HEAD that is not a descendant (a rebase, a checkout) walks everything again.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { trace } from "../core/trace.js";
import type { GitReader } from "./git.js";

export async function historyLog(git: GitReader, head: string, file: string): Promise<string> {
  const cached = readCached(file);
  if (cached?.head === head) return cached.log;
  let log: string;
  if (cached && (await git.isAncestor(cached.head, head))) log = (await git.logSince(cached.head, head)) + cached.log;
  else log = await git.log(head);
  trace("drift: history walked");
  save(file, head, log);
  return log;
}

function readCached(file: string): { head: string; log: string } | null {
  try {
    const text = readFileSync(file, "utf8");
    const newline = text.indexOf("\n");
    return newline < 0 ? null : { head: text.slice(0, newline), log: text.slice(newline + 1) };
  } catch {
    return null;
  }
}

function save(file: string, head: string, log: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, `${head}\n${log}`);
    renameSync(temporary, file);
  } catch {
    // The walk is only slower next time.
  }
}
