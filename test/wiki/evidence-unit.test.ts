import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import {
  anchorRange,
  fileFingerprint,
  fileLines,
  formatLineRange,
  gitBlobId,
  linesFingerprint,
  parseLineRange,
  rangeFingerprint,
} from "../../src/wiki/evidence.js";

describe("parseLineRange", () => {
  test("a range, a single line, a number, with spaces around the dash", () => {
    expect(parseLineRange("40-88")).toEqual({ range: { start: 40, end: 88 } });
    expect(parseLineRange("40")).toEqual({ range: { start: 40, end: 40 } });
    expect(parseLineRange(40)).toEqual({ range: { start: 40, end: 40 } });
    expect(parseLineRange(" 3 - 5 ")).toEqual({ range: { start: 3, end: 5 } });
    expect(parseLineRange("7-7")).toEqual({ range: { start: 7, end: 7 } });
  });

  test("reversed, zero and unreadable ranges are errors that say why", () => {
    expect(parseLineRange("88-40")).toEqual({ error: "lines 88-40 run backwards" });
    expect(parseLineRange("0-4")).toEqual({ error: "lines start at 1, not 0" });
    expect(parseLineRange(0)).toEqual({ error: "lines start at 1, not 0" });
    for (const bad of ["", "a-b", "1-", "-3", "1-2-3", "1.5", 1.5, -2, null, true, [1, 2]]) {
      expect(parseLineRange(bad)).toEqual({ error: `lines must be a line number or a range like 40-88, not ${JSON.stringify(bad)}` });
    }
  });

  test("formatLineRange writes the short form back", () => {
    expect(formatLineRange({ start: 40, end: 88 })).toBe("40-88");
    expect(formatLineRange({ start: 7, end: 7 })).toBe("7");
  });
});

describe("fileLines", () => {
  test("line endings are unified and trailing blanks dropped; a final newline makes no extra line", () => {
    expect(fileLines("a\r\nb\rc\n")).toEqual(["a", "b", "c"]);
    expect(fileLines("a  \t\nb")).toEqual(["a", "b"]);
    expect(fileLines("  lead stays\n")).toEqual(["  lead stays"]);
    expect(fileLines("a\n\n")).toEqual(["a", ""]);
    expect(fileLines("")).toEqual([]);
  });

  test("a CRLF checkout and an editor's trim give the same fingerprint", () => {
    const lf = fileLines("one\ntwo\nthree\n");
    const crlf = fileLines("one\r\ntwo  \r\nthree\r\n");
    expect(rangeFingerprint(crlf, { start: 1, end: 3 })).toBe(rangeFingerprint(lf, { start: 1, end: 3 }));
  });
});

describe("fingerprints", () => {
  test("lines: 16 hex of a SHA-256 of the lines joined by newlines", () => {
    const expected = createHash("sha256").update("a\nb").digest("hex").slice(0, 16);
    expect(linesFingerprint(["a", "b"])).toBe(expected);
    expect(rangeFingerprint(["x", "a", "b", "y"], { start: 2, end: 3 })).toBe(expected);
  });

  test("a range past the end has none; the last line itself is fine", () => {
    expect(rangeFingerprint(["a", "b"], { start: 2, end: 2 })).toBe(linesFingerprint(["b"]));
    expect(rangeFingerprint(["a", "b"], { start: 2, end: 3 })).toBeNull();
  });

  test("a whole file: the start of git's blob id", () => {
    // `printf 'hello\n' | git hash-object --stdin`
    expect(gitBlobId(Buffer.from("hello\n"))).toBe("ce013625030ba8dba906f756967f9e9ca394464a");
    expect(fileFingerprint(Buffer.from("hello\n"))).toBe("ce013625030ba8db");
  });
});

describe("anchorRange", () => {
  const FILE = ["head", "alpha", "beta", "gamma", "tail"];
  const cited = rangeFingerprint(FILE, { start: 2, end: 3 })!;

  test("fresh when the same range still holds the cited text", () => {
    expect(anchorRange(FILE, { start: 2, end: 3 }, cited)).toEqual({ status: "fresh" });
  });

  test("moved when an equally long run elsewhere holds it", () => {
    const shifted = ["new", "lines", ...FILE];
    expect(anchorRange(shifted, { start: 2, end: 3 }, cited)).toEqual({ status: "moved", range: { start: 4, end: 5 } });
  });

  test("moved to the nearest copy when the text repeats; a tie goes to the earlier one", () => {
    const repeated = ["alpha", "beta", "x", "x", "x", "x", "alpha", "beta", "x", "alpha", "beta"];
    // Cited at 5-6: copies at 1 (4 away), 7 (2 away) and 10 (5 away).
    expect(anchorRange(repeated, { start: 5, end: 6 }, cited)).toEqual({ status: "moved", range: { start: 7, end: 8 } });
    const tie = ["alpha", "beta", "x", "x", "alpha", "beta"];
    expect(anchorRange(tie, { start: 3, end: 4 }, cited)).toEqual({ status: "moved", range: { start: 1, end: 2 } });
  });

  test("changed when no run of that length holds it any more, or the file got shorter than the range", () => {
    expect(anchorRange(["head", "alpha", "BETA", "gamma"], { start: 2, end: 3 }, cited)).toEqual({ status: "changed" });
    expect(anchorRange(["head"], { start: 2, end: 3 }, cited)).toEqual({ status: "changed" });
  });
});
