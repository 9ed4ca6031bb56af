import { oneShortLine } from "../text.js";

/** A tool call shrinks to its name and the one argument that says what it did. */
const TOOL_LINE_CHARS = 140;

/** Argument names, most telling first, across Claude's and Codex's tools. */
const TELLING_ARGUMENTS = [
  "command",
  "cmd",
  "file_path",
  "filePath",
  "path",
  "notebook_path",
  "pattern",
  "query",
  "url",
  "description",
  "prompt",
  "skill",
];

export function toolCallLine(name: string, input: unknown): string {
  const argument = tellingArgument(input);
  return oneShortLine(argument ? `${name}: ${argument}` : name, TOOL_LINE_CHARS);
}

function tellingArgument(input: unknown): string {
  if (typeof input === "string") return input;
  if (typeof input !== "object" || input === null) return "";
  const record = input as Record<string, unknown>;
  for (const key of TELLING_ARGUMENTS) {
    const value = record[key];
    if (typeof value === "string" && value.trim() !== "") return value;
    if (Array.isArray(value) && value.every((part) => typeof part === "string")) return shellWords(value as string[]);
  }
  return "";
}

/** `["bash", "-lc", "npm test"]` says `npm test`; other argument vectors are joined. */
function shellWords(words: string[]): string {
  const shell = words.length === 3 && /(^|\/)(ba|z)?sh$/.test(words[0] ?? "") && words[1]?.startsWith("-");
  return shell ? words[2]! : words.join(" ");
}

/** Arguments that arrive as a JSON string (Codex function calls). */
export function parseArguments(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** An apply_patch call names the files it touched, not its whole text. */
export function patchLine(patch: string): string {
  const files = Array.from(patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm), (match) => match[1]!.trim());
  return toolCallLine("apply_patch", files.length > 0 ? files.join(", ") : "");
}
