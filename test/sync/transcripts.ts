import { appendFileSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";

/** Writers of transcripts shaped like the agents' own, for sync tests. */
export interface WrittenTranscript {
  path: string;
  sessionId: string;
  append(lines: number, at: Date): void;
  age(at: Date): void;
}

export function claudeSession(home: string, cwd: string, at: Date, options: { turns?: number; entrypoint?: string; sessionId?: string } = {}): WrittenTranscript {
  const sessionId = options.sessionId ?? randomUUID();
  const folder = join(home, ".claude", "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"));
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `${sessionId}.jsonl`);
  let n = 0;
  const line = (when: Date) => {
    n += 1;
    const type = n % 2 === 1 ? "user" : "assistant";
    const message = type === "user" ? { role: "user", content: `question ${n}` } : { role: "assistant", id: `m${n}`, content: [{ type: "text", text: `answer ${n}` }] };
    return JSON.stringify({ type, uuid: randomUUID(), parentUuid: null, sessionId, cwd, timestamp: when.toISOString(), isSidechain: false, entrypoint: options.entrypoint ?? "cli", message }) + "\n";
  };
  writeFileSync(path, JSON.stringify({ type: "queue-operation", operation: "enqueue", timestamp: at.toISOString(), sessionId }) + "\n");
  for (let i = 0; i < (options.turns ?? 2); i++) appendFileSync(path, line(at));
  const written: WrittenTranscript = {
    path,
    sessionId,
    append(lines, when) {
      for (let i = 0; i < lines; i++) appendFileSync(path, line(when));
      utimesSync(path, when, when);
    },
    age(when) {
      utimesSync(path, when, when);
    },
  };
  written.age(at);
  return written;
}

export function codexRollout(codexHome: string, cwd: string, at: Date, options: { originator?: string } = {}): WrittenTranscript {
  const id = randomUUID();
  const day = join(codexHome, "sessions", String(at.getFullYear()), String(at.getMonth() + 1).padStart(2, "0"), String(at.getDate()).padStart(2, "0"));
  mkdirSync(day, { recursive: true });
  const path = join(day, `rollout-${at.toISOString().slice(0, 19).replace(/:/g, "-")}-${id}.jsonl`);
  const meta = { id, timestamp: at.toISOString(), cwd, originator: options.originator ?? "codex_exec", cli_version: "0.171.0", source: "exec", thread_source: "user" };
  writeFileSync(path, JSON.stringify({ timestamp: at.toISOString(), type: "session_meta", payload: meta }) + "\n");
  const turn = (when: Date, text: string) =>
    JSON.stringify({ timestamp: when.toISOString(), type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text }] } }) + "\n";
  appendFileSync(path, turn(at, "first question"));
  const written: WrittenTranscript = {
    path,
    sessionId: id,
    append(lines, when) {
      for (let i = 0; i < lines; i++) appendFileSync(path, turn(when, `later question ${i}`));
      utimesSync(path, when, when);
    },
    age(when) {
      utimesSync(path, when, when);
    },
  };
  written.age(at);
  return written;
}

export const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);
