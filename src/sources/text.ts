import { open } from "node:fs/promises";

/** How much of a file is inspected to tell text from binary, as git does. */
export const BINARY_SNIFF_BYTES = 8 * 1024;

export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

export interface FileHead {
  bytes: Buffer;
  /** Size of the whole file. */
  size: number;
}

/** Reads at most `limit` bytes from the start of a file, without loading the rest. */
export async function readFileHead(path: string, limit: number): Promise<FileHead> {
  const handle = await open(path, "r");
  try {
    const size = (await handle.stat()).size;
    const buffer = Buffer.alloc(Math.min(size, limit));
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { bytes: buffer.subarray(0, filled), size };
  } finally {
    await handle.close();
  }
}

/** Decodes UTF-8 leniently, dropping a multi-byte character cut in half at the end of a read. */
export function decodeUtf8(bytes: Uint8Array, cutShort: boolean): string {
  const text = new TextDecoder("utf-8").decode(bytes);
  return cutShort ? text.replace(/\uFFFD$/, "") : text;
}

const KIB = 1024;
const MIB = 1024 * 1024;

/** `5 MB`, `200 KB`, `1.4 MB`, `512 bytes`: sizes as people read them (binary units). */
export function formatSize(bytes: number): string {
  if (bytes >= MIB) return `${trimNumber(bytes / MIB)} MB`;
  if (bytes >= KIB) return `${trimNumber(bytes / KIB)} KB`;
  return `${bytes} bytes`;
}

function trimNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1).replace(/\.0$/, "");
}

export function formatCount(value: number): string {
  return value.toLocaleString("en-US");
}

/** `1 commit`, `1,204 commits`. */
export function counted(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

/**
 * A fenced block that the content cannot close early: the fence is one backtick longer
 * than the longest run inside. Material stays one block even when it holds Markdown of its own.
 */
export function fenced(content: string, language = ""): string {
  const longest = Math.max(0, ...Array.from(content.matchAll(/`+/g), (match) => match[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  const body = content.endsWith("\n") ? content : `${content}\n`;
  return `${fence}${language}\n${body}${fence}`;
}

/** One short line: whitespace collapsed, cut with an ellipsis. */
export function oneShortLine(text: string, limit: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

/** Path with `/` separators, as shown to people and to the agent. */
export function slashPath(path: string): string {
  return path.split("\\").join("/");
}
