import { createHash } from "node:crypto";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { completeExtent, fingerprint, PRINT_BYTES } from "../../src/sync/extent.js";
import { fakeHomes, writeBytes, zstdAvailable, zstdCompress, type FakeHomes } from "../fixtures/transcripts/homes.js";

let homes: FakeHomes;
beforeEach(() => (homes = fakeHomes()));
afterEach(() => homes.cleanup());

const expectedPrint = (bytes: Buffer, offset: number) =>
  createHash("sha256").update(bytes.subarray(Math.max(0, offset - PRINT_BYTES), offset)).digest("hex").slice(0, 32);

function file(name: string, body: Buffer | string): { path: string; bytes: Buffer } {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return { path: writeBytes(join(homes.dir, name), bytes), bytes };
}

/** `count` lines of `width` bytes each, newline included, every one different. */
function lines(count: number, width: number, from = 0): string {
  return Array.from({ length: count }, (_, i) => `${String(from + i).padStart(8, "0")}:`.padEnd(width - 1, "x") + "\n").join("");
}

test("the fingerprint is the first 32 hex digits of the window's sha256", () => {
  const window = Buffer.from("a line\n");
  expect(fingerprint(window)).toBe(createHash("sha256").update(window).digest("hex").slice(0, 32));
  expect(fingerprint(window)).toHaveLength(32);
  expect(PRINT_BYTES).toBe(4096);
});

describe("plain transcripts", () => {
  test("complete lines end after the last newline; a torn last line is left out", async () => {
    const { path, bytes } = file("a.jsonl", "one\ntwo\nthr");
    expect(await completeExtent(path, bytes.length, 0)).toEqual({ end: 8, endPrint: expectedPrint(bytes, 8), atPrint: null });
  });

  test("a file ending in a newline is complete to its last byte", async () => {
    const { path, bytes } = file("a.jsonl", "one\ntwo\n");
    expect((await completeExtent(path, bytes.length, 0)).end).toBe(8);
  });

  test("no newline at all, or an empty file: nothing is complete and nothing fingerprinted", async () => {
    const torn = file("torn.jsonl", "only a torn line");
    expect(await completeExtent(torn.path, torn.bytes.length, 4)).toEqual({ end: 0, endPrint: null, atPrint: null });
    const empty = file("empty.jsonl", "");
    expect(await completeExtent(empty.path, 0, 0)).toEqual({ end: 0, endPrint: null, atPrint: null });
  });

  test("only the listed size is looked at: bytes appended since are the next sync's", async () => {
    const { path } = file("a.jsonl", "one\ntwo\nthree\n");
    expect((await completeExtent(path, 9, 0)).end).toBe(8);
    // The cursor past the listed lines has no fingerprint, even where a newline now precedes it.
    expect((await completeExtent(path, 9, 14)).atPrint).toBeNull();
  });

  test("the fingerprint at a line boundary matches the one taken at the end when the file was shorter", async () => {
    const before = file("a.jsonl", lines(3, 100));
    const first = await completeExtent(before.path, before.bytes.length, 0);
    const after = file("a.jsonl", lines(3, 100) + lines(2, 100, 3));
    const second = await completeExtent(after.path, after.bytes.length, first.end);
    expect(second.end).toBe(500);
    expect(second.atPrint).toBe(first.endPrint);
    expect(second.endPrint).toBe(expectedPrint(after.bytes, 500));
    expect(second.endPrint).not.toBe(second.atPrint);
  });

  test("an offset that is not a line boundary, or past the complete lines, has no fingerprint", async () => {
    const { path, bytes } = file("a.jsonl", "one\ntwo\nthr");
    expect((await completeExtent(path, bytes.length, 5)).atPrint).toBeNull();
    expect((await completeExtent(path, bytes.length, 9)).atPrint).toBeNull();
    expect((await completeExtent(path, bytes.length, 8)).atPrint).toBe(expectedPrint(bytes, 8));
    expect((await completeExtent(path, bytes.length, 4)).atPrint).toBe(expectedPrint(bytes, 4));
  });

  test("a window is the PRINT_BYTES before the offset, or all of them nearer the start", async () => {
    const { path, bytes } = file("a.jsonl", lines(100, 100));
    const extent = await completeExtent(path, bytes.length, 5_000);
    expect(extent.atPrint).toBe(expectedPrint(bytes, 5_000));
    expect(extent.atPrint).toBe(fingerprint(bytes.subarray(5_000 - 4096, 5_000)));
    expect(extent.atPrint).not.toBe(fingerprint(bytes.subarray(5_000 - 4097, 5_000)));
    expect((await completeExtent(path, bytes.length, 100)).atPrint).toBe(fingerprint(bytes.subarray(0, 100)));
  });

  test("the last newline is found across 64 KiB blocks, whichever block holds it", async () => {
    const line = "x".repeat(200_000);
    const { path, bytes } = file("long.jsonl", `head\n${line}`);
    expect((await completeExtent(path, bytes.length, 0)).end).toBe(5);
    const exact = file("exact.jsonl", `${"y".repeat(65_535)}\n${"z".repeat(10)}`);
    expect((await completeExtent(exact.path, exact.bytes.length, 0)).end).toBe(65_536);
    const edge = file("edge.jsonl", `${"y".repeat(65_536)}\n`);
    expect((await completeExtent(edge.path, edge.bytes.length, 0)).end).toBe(65_537);
  });

  test("a file shorter than the listed size (rewritten since the listing) is read as it is now", async () => {
    const { path, bytes } = file("a.jsonl", "one\ntwo\n");
    expect(await completeExtent(path, 200_000, 4)).toEqual({ end: 8, endPrint: expectedPrint(bytes, 8), atPrint: expectedPrint(bytes, 4) });
  });

  test("a file that is gone is an error, for the plan to report", async () => {
    await expect(completeExtent(join(homes.dir, "missing.jsonl"), 10, 0)).rejects.toThrow(/ENOENT/);
  });
});

describe.skipIf(!zstdAvailable)("compressed transcripts (needs the zstd command)", () => {
  test("a .jsonl.zst counts decompressed bytes and fingerprints them as the plain file would", async () => {
    const body = lines(300, 333) + "torn";
    const plain = file("rollout.jsonl", body);
    const fromPlain = await completeExtent(plain.path, plain.bytes.length, 33_300);
    const compressed = zstdCompress(plain.path, { keepPlain: true });
    const fromZstd = await completeExtent(compressed, 1, 33_300);
    expect(fromZstd).toEqual(fromPlain);
    expect(fromZstd.end).toBe(99_900);
    expect(fromZstd.atPrint).toBe(expectedPrint(plain.bytes, 33_300));
    expect(fromZstd.endPrint).toBe(expectedPrint(plain.bytes, 99_900));
  });

  test("in a compressed file, offsets inside a line, past the end or at zero have no fingerprint", async () => {
    const plain = file("rollout.jsonl", lines(50, 100));
    const compressed = zstdCompress(plain.path);
    expect((await completeExtent(compressed, 1, 150)).atPrint).toBeNull();
    expect((await completeExtent(compressed, 1, 5_100)).atPrint).toBeNull();
    expect((await completeExtent(compressed, 1, 0)).atPrint).toBeNull();
    expect((await completeExtent(compressed, 1, 100)).atPrint).toBe(expectedPrint(plain.bytes, 100));
    expect((await completeExtent(compressed, 1, 5_000)).atPrint).toBe(expectedPrint(plain.bytes, 5_000));
  });

  test("a compressed file with no newline, or a torn end, keeps only its complete lines", async () => {
    const torn = file("torn.jsonl", "no newline here");
    expect(await completeExtent(zstdCompress(torn.path), 1, 0)).toEqual({ end: 0, endPrint: null, atPrint: null });
    const big = file("big.jsonl", lines(2_000, 1_000) + "x".repeat(300_000));
    const extent = await completeExtent(zstdCompress(big.path, { keepPlain: true }), 1, 1_000_000);
    expect(extent.end).toBe(2_000_000);
    expect(extent.endPrint).toBe(expectedPrint(big.bytes, 2_000_000));
    expect(extent.atPrint).toBe(expectedPrint(big.bytes, 1_000_000));
  });
});
