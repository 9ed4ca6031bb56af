/**
 * The folders a scheduler created to hold our files (`~/.config/systemd/user/` on a machine
 * that had none), recorded in `<state>/automation/created-folders.json` so that removing
 * our units takes them away again, and only them: a folder is removed only while it is
 * empty, and a folder that was there before setup is never in the record.
 */
import { existsSync, mkdirSync, readdirSync, rmdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import * as z from "zod/mini";
import { readTextIfExists } from "../core/fs.js";
import type { StatePaths } from "../core/paths.js";
import { removeIfPresent, writeTextAtomic } from "./files.js";

const RecordFile = z.object({ folders: z.array(z.string()) });

export function createdFoldersPath(paths: StatePaths): string {
  return join(paths.root, "automation", "created-folders.json");
}

/** Creates `dir` and the parents it lacks, and records each one that this call created. */
export function ensureFolder(record: string, dir: string): void {
  const missing: string[] = [];
  for (let at = resolve(dir); !existsSync(at); at = dirname(at)) {
    missing.push(at);
    if (dirname(at) === at) break;
  }
  if (missing.length === 0) return;
  mkdirSync(dir, { recursive: true });
  const known = readRecord(record);
  writeRecord(record, [...new Set([...known, ...missing])]);
}

/**
 * Removes the recorded folders that are empty now, deepest first, so an emptied
 * `systemd/user/` lets `systemd/` go too; a folder that holds anything stays, and stays
 * recorded. Never throws: a folder left behind is not worth failing an uninstall for.
 */
export function removeEmptyCreatedFolders(record: string): string[] {
  const removed: string[] = [];
  const kept: string[] = [];
  const folders = readRecord(record).sort((a, b) => b.length - a.length);
  for (const folder of folders) {
    if (!existsSync(folder)) continue;
    if (isEmptyFolder(folder)) {
      try {
        rmdirSync(folder);
        removed.push(folder);
        continue;
      } catch {
        // Raced with a writer, or not ours to remove after all: it stays.
      }
    }
    kept.push(folder);
  }
  if (kept.length === 0) removeIfPresent(record);
  else if (kept.length !== folders.length) writeRecord(record, kept);
  return removed;
}

function readRecord(record: string): string[] {
  const text = readTextIfExists(record);
  if (text === null) return [];
  try {
    const parsed = RecordFile.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.folders : [];
  } catch {
    return [];
  }
}

function writeRecord(record: string, folders: string[]): void {
  writeTextAtomic(record, JSON.stringify({ folders }, null, 2) + "\n");
}

function isEmptyFolder(path: string): boolean {
  try {
    return readdirSync(path).length === 0;
  } catch {
    return false;
  }
}
