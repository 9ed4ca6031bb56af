/**
 * Which `ca serve` viewers run on this state root: each writes `<state>/viewers/<pid>.json`
 * (`{"pid", "start_time", "url"}`) while it listens and removes it when it stops, so
 * `uninstall` can stop them before it deletes what they read. The start time is the raw
 * value process identity compares (see almanac/architecture/core.md): a reused pid is never
 * taken for the viewer.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { readTextIfExists } from "./fs.js";

export interface ViewerRecord {
  pid: number;
  startTime: string;
  url: string;
}

const RecordFile = z.object({ pid: z.number().check(z.int(), z.positive()), start_time: z.string(), url: z.string() });

function viewersDir(stateRoot: string): string {
  return join(stateRoot, "viewers");
}

/** Records a running viewer; the returned function removes the record (and never throws). */
export function recordViewer(stateRoot: string, viewer: ViewerRecord): () => void {
  const dir = viewersDir(stateRoot);
  const file = join(dir, `${viewer.pid}.json`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify({ pid: viewer.pid, start_time: viewer.startTime, url: viewer.url }) + "\n", { mode: 0o600 });
  return () => rmSync(file, { force: true });
}

/** Every recorded viewer, live or not (a killed one leaves its record); unreadable records are skipped. */
export function readViewerRecords(stateRoot: string): ViewerRecord[] {
  let names: string[];
  try {
    names = readdirSync(viewersDir(stateRoot));
  } catch {
    return [];
  }
  return names.filter((name) => /^\d+\.json$/.test(name)).flatMap((name) => {
    try {
      const parsed = RecordFile.safeParse(JSON.parse(readTextIfExists(join(viewersDir(stateRoot), name)) ?? "null"));
      return parsed.success ? [{ pid: parsed.data.pid, startTime: parsed.data.start_time, url: parsed.data.url }] : [];
    } catch {
      return [];
    }
  });
}
