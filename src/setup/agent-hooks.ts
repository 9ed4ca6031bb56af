/**
 * The agents' SessionEnd hooks, which sync a session the moment it ends: Claude Code
 * reads them from `settings.json` in its config folder, Codex from `hooks.json` in its
 * home (and runs a hook only once the person has trusted it, in Codex's `/hooks`). Both
 * files hold `hooks.SessionEnd[] = {matcher?, hooks: [{type: "command", command}]}`.
 * `setup` merges our entry in, keeping everything else in the file; `uninstall` removes
 * exactly our entries, and the `SessionEnd` list, the `hooks` object or the file only
 * when setup created them (a record in the state root says which).
 */
import { existsSync, lstatSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { conflict } from "../core/errors.js";
import { readTextIfExists } from "../core/fs.js";
import { writeFileAtomic } from "../wiki/atomic-write.js";
import { claudeDir, codexDir, writeThrough } from "./instruction-files.js";
import type { HookResult, HookTarget } from "./model.js";

export { HOOK_TARGETS, type HookResult, type HookTarget } from "./model.js";

/** Where a target's hook is now: ours as this installation writes it, ours from another one (moved, reinstalled), or none. */
export interface HookState {
  target: HookTarget;
  path: string;
  status: "installed" | "stale" | "missing";
  /** Our commands found in the file. */
  commands: string[];
}

export interface RemovedHook {
  target: HookTarget;
  path: string;
  /** Setup created the file and it held nothing else, so it went. */
  deleted: boolean;
}

/** What setup created in a file, so uninstall removes no more than that. */
interface Created {
  file: boolean;
  hooks: boolean;
  sessionEnd: boolean;
}

type Json = Record<string, unknown>;

const SUBCOMMAND = "hook session-end";

export function hookFile(target: HookTarget, env: NodeJS.ProcessEnv): string {
  return target === "claude" ? join(claudeDir(env), "settings.json") : join(codexDir(env), "hooks.json");
}

/** The command the agent runs through its shell: this node and this CLI script, absolute, quoted. */
export function hookCommand(nodePath: string, scriptPath: string): string {
  return `${shellQuote(nodePath)} ${shellQuote(scriptPath)} ${SUBCOMMAND}`;
}

/** Ours: a command that ends by running a codealmanac script (`bin.js`, `codealmanac` or `ca`) with `hook session-end`. */
export function isOurHookCommand(command: unknown): boolean {
  if (typeof command !== "string") return false;
  return /(?:^|[\s/'"])(?:bin\.js|codealmanac|ca)['"]?\s+hook\s+session-end\s*$/.test(command.trim());
}

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** One target's file with our hook merged in, computed before anything is written; throws (naming the file) when it cannot be edited. */
export interface HookEdit {
  result: HookResult;
  /** The new text; null when nothing changes. */
  after: string | null;
  created: Created;
}

export function planHook(target: HookTarget, env: NodeJS.ProcessEnv, command: string): HookEdit {
  const path = hookFile(target, env);
  const before = readTextIfExists(path);
  const settings = parseSettings(path, before);
  const created: Created = { file: before === null, hooks: settings.hooks === undefined, sessionEnd: false };
  const hooks = (settings.hooks ??= {}) as Json;
  created.sessionEnd = hooks.SessionEnd === undefined;
  const groups = (hooks.SessionEnd ??= []) as Json[];
  const ours = ourHooks(groups);
  let status: HookResult["status"];
  if (ours.length === 1 && ours[0]!.hook.command === command) {
    status = "already installed";
  } else if (ours.length > 0) {
    ours[0]!.hook.command = command;
    removeHooks(groups, ours.slice(1).map((found) => found.hook));
    status = "updated";
  } else {
    groups.push({ hooks: [{ type: "command", command }] });
    status = "installed";
  }
  const after = status === "already installed" ? null : `${JSON.stringify(settings, null, 2)}\n`;
  return { result: { target, path, status }, after, created };
}

/** Writes the edit, and records what it created (`record`: the state root's file). */
export function applyHook(edit: HookEdit, record: string): HookResult {
  if (edit.after === null) return edit.result;
  writeThrough(edit.result.path, edit.after);
  const { file, hooks, sessionEnd } = edit.created;
  if (file || hooks || sessionEnd) {
    const records = readRecords(record);
    const earlier = records[edit.result.path];
    records[edit.result.path] = { file: file || earlier?.file === true, hooks: hooks || earlier?.hooks === true, sessionEnd: sessionEnd || earlier?.sessionEnd === true };
    mkdirSync(dirname(record), { recursive: true });
    writeFileAtomic(record, `${JSON.stringify(records, null, 2)}\n`);
  }
  return edit.result;
}

/** Doctor's and uninstall's view: changes nothing. A file that is not valid JSON throws. */
export function hookState(target: HookTarget, env: NodeJS.ProcessEnv, command: string): HookState {
  const path = hookFile(target, env);
  const settings = parseSettings(path, readTextIfExists(path));
  const groups = sessionEndGroups(settings);
  const commands = ourHooks(groups).map((found) => String(found.hook.command));
  const status = commands.length === 0 ? "missing" : commands.length === 1 && commands[0] === command ? "installed" : "stale";
  return { target, path, status, commands };
}

/** Removes every hook of ours from the target's file; null when it held none. */
export function removeHook(target: HookTarget, env: NodeJS.ProcessEnv, record: string): RemovedHook | null {
  const path = hookFile(target, env);
  const before = readTextIfExists(path);
  const settings = parseSettings(path, before);
  const groups = sessionEndGroups(settings);
  const ours = ourHooks(groups);
  if (ours.length === 0) return null;
  removeHooks(groups, ours.map((found) => found.hook));
  const created = readRecords(record)[path];
  const hooks = settings.hooks as Json;
  if (groups.length === 0 && created?.sessionEnd) delete hooks.SessionEnd;
  if (Object.keys(hooks).length === 0 && created?.hooks) delete settings.hooks;
  // A symlink is left in place (emptied through), so it never dangles.
  if (Object.keys(settings).length === 0 && created?.file && !lstatSync(path).isSymbolicLink()) {
    rmSync(path, { force: true });
    return { target, path, deleted: true };
  }
  writeThrough(path, `${JSON.stringify(settings, null, 2)}\n`);
  return { target, path, deleted: false };
}

function parseSettings(path: string, text: string | null): Json {
  if (text === null || text.trim() === "") return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw conflict(`${path} is not valid JSON (${(error as Error).message}); fix it by hand, or pass --skip-hooks`);
  }
  if (!isObject(data)) throw conflict(`${path} does not hold a JSON object; fix it by hand, or pass --skip-hooks`);
  if (data.hooks !== undefined && !isObject(data.hooks)) throw conflict(`"hooks" in ${path} is not an object; fix it by hand, or pass --skip-hooks`);
  const list = (data.hooks as Json | undefined)?.SessionEnd;
  if (list !== undefined && !Array.isArray(list)) throw conflict(`"hooks.SessionEnd" in ${path} is not a list; fix it by hand, or pass --skip-hooks`);
  return data;
}

function sessionEndGroups(settings: Json): Json[] {
  return (((settings.hooks as Json | undefined)?.SessionEnd as Json[] | undefined) ?? []);
}

/** Each hook of ours, with the group holding it. */
function ourHooks(groups: Json[]): { group: Json; hook: Json }[] {
  return groups.flatMap((group) => {
    const hooks = isObject(group) && Array.isArray(group.hooks) ? (group.hooks as unknown[]) : [];
    return hooks.filter((hook): hook is Json => isObject(hook) && hook.type === "command" && isOurHookCommand(hook.command)).map((hook) => ({ group, hook }));
  });
}

/** Takes these hooks out of their groups, and a group left with no hook out of the list. */
function removeHooks(groups: Json[], doomed: Json[]): void {
  const gone = new Set(doomed);
  for (let i = groups.length - 1; i >= 0; i--) {
    const group = groups[i]!;
    if (!isObject(group) || !Array.isArray(group.hooks)) continue;
    const kept = (group.hooks as unknown[]).filter((hook) => !gone.has(hook as Json));
    if (kept.length === group.hooks.length) continue;
    if (kept.length === 0) groups.splice(i, 1);
    else group.hooks = kept;
  }
}

function readRecords(record: string): Record<string, Created> {
  if (!existsSync(record)) return {};
  try {
    const data: unknown = JSON.parse(readTextIfExists(record) ?? "{}");
    return isObject(data) ? (data as Record<string, Created>) : {};
  } catch {
    return {};
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
