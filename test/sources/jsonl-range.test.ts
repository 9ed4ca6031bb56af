import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { newJsonlStats, readJsonlEntries, readJsonlObjects, type JsonlReadOptions } from "../../src/sources/transcripts/lines.js";
import { tempDir } from "./helpers.js";
import { bytes, zstdAvailable, zstdCompress } from "./transcript-lines.js";

const LINES = ['{"n":1}', '{"n":2,"text":"é"}', "", "not json", '{"n":3}'];
const TEXT = `${LINES.join("\n")}\n`;
/** Where each line starts. */
const OFFSETS = LINES.map((_, index) => bytes(LINES.slice(0, index).map((line) => `${line}\n`).join("")));

async function entries(path: string, options: Partial<JsonlReadOptions>, stats = newJsonlStats()) {
  const read = [];
  for await (const entry of readJsonlEntries(path, { maxLineBytes: 1024, ...options }, stats)) read.push({ offset: entry.offset, n: entry.object?.n ?? null });
  return { read, stats };
}

function sample(): string {
  const path = join(tempDir(), "lines.jsonl");
  writeFileSync(path, TEXT);
  return path;
}

describe("reading part of a JSONL stream", () => {
  test("each non-blank line comes with its start offset; the stats end where the input did", async () => {
    const { read, stats } = await entries(sample(), {});
    expect(read).toEqual([
      { offset: OFFSETS[0], n: 1 },
      { offset: OFFSETS[1], n: 2 },
      { offset: OFFSETS[3], n: null },
      { offset: OFFSETS[4], n: 3 },
    ]);
    expect(stats).toEqual({ objects: 3, skipped: 1, oversized: 0, endByte: bytes(TEXT) });
  });

  test("fromByte at a line start and toByte after a newline read just those lines", async () => {
    const { read, stats } = await entries(sample(), { fromByte: OFFSETS[1], toByte: OFFSETS[4] });
    expect(read).toEqual([
      { offset: OFFSETS[1], n: 2 },
      { offset: OFFSETS[3], n: null },
    ]);
    expect(stats.endByte).toBe(OFFSETS[4]);
  });

  test("a toByte inside a line leaves it torn, skipped and counted", async () => {
    const { read, stats } = await entries(sample(), { toByte: OFFSETS[1]! + 3 });
    expect(read).toEqual([
      { offset: OFFSETS[0], n: 1 },
      { offset: OFFSETS[1], n: null },
    ]);
    expect(stats.skipped).toBe(1);
  });

  test("seekLineStart begins at the first line starting at or after fromByte", async () => {
    const path = sample();
    expect((await entries(path, { fromByte: OFFSETS[1]! + 1, seekLineStart: true })).read[0]).toEqual({ offset: OFFSETS[3], n: null });
    expect((await entries(path, { fromByte: OFFSETS[1], seekLineStart: true })).read[0]).toEqual({ offset: OFFSETS[1], n: 2 });
  });

  test("a file shorter than fromByte yields nothing, and endByte says it ended short", async () => {
    const { read, stats } = await entries(sample(), { fromByte: bytes(TEXT) + 10, seekLineStart: true });
    expect(read).toEqual([]);
    expect(stats.endByte).toBeLessThan(bytes(TEXT) + 10);
  });

  test("readJsonlObjects still yields the bare objects", async () => {
    const objects = [];
    for await (const object of readJsonlObjects(sample(), { maxLineBytes: 1024, fromByte: OFFSETS[1] })) objects.push(object);
    expect(objects).toEqual([{ n: 2, text: "é" }, { n: 3 }]);
  });
});

describe.skipIf(!zstdAvailable)("reading part of a compressed stream (needs the zstd CLI)", () => {
  test("offsets count decompressed bytes, so a range reads the same lines as from the plain file", async () => {
    const path = sample();
    const zst = zstdCompress(path);
    for (const options of [{}, { fromByte: OFFSETS[1], toByte: OFFSETS[4] }, { fromByte: OFFSETS[1]! + 1, seekLineStart: true }, { toByte: OFFSETS[1]! + 3 }]) {
      expect(await entries(zst, options)).toEqual(await entries(path, options));
    }
  });

  test("a compressed stream shorter than fromByte ends short", async () => {
    const zst = zstdCompress(sample());
    const { read, stats } = await entries(zst, { fromByte: bytes(TEXT) + 10 });
    expect(read).toEqual([]);
    expect(stats.endByte).toBe(bytes(TEXT));
  });
});
