import { describe, expect, test } from "vitest";
import { TopLevelIdScanner } from "../../src/mcp/id-scan.js";
import { BoundedLines, type LineEvent } from "../../src/mcp/lines.js";

/** The id the scanner reads from `text`, fed in pieces of `step` bytes. */
function scanId(text: string, step = 1): unknown {
  const bytes = Buffer.from(text);
  const scanner = new TopLevelIdScanner();
  for (let i = 0; i < bytes.length; i += step) scanner.feed(bytes.subarray(i, i + step));
  return scanner.id();
}

describe("reading a message's id without keeping the message", () => {
  test("the top-level id, wherever it stands and however the bytes arrive", () => {
    for (const step of [1, 3, 1000]) {
      expect(scanId('{"jsonrpc":"2.0","id":7,"method":"ping"}', step)).toBe(7);
      expect(scanId('{"method":"tools/call","params":{"id":1,"q":"a"},"jsonrpc":"2.0","id":42}', step)).toBe(42);
      expect(scanId('{ "id" : "req-\\"1\\"" , "method": "x"}', step)).toBe('req-"1"');
      expect(scanId('{"params":{"x":"\\"id\\":5,"},"id":-3}', step)).toBe(-3);
    }
  });

  test("no id that can be read: none at the top level, not an object, or not a string or integer", () => {
    expect(scanId('{"params":{"id":1},"method":"x"}')).toBeNull();
    expect(scanId('{"params":[{"id":1}],"method":"x"}')).toBeNull();
    expect(scanId('[{"jsonrpc":"2.0","id":1}]')).toBeNull();
    expect(scanId('"id"')).toBeNull();
    expect(scanId('{"id":1.5}')).toBeNull();
    expect(scanId('{"id":null}')).toBeNull();
    expect(scanId('{"id":{"a":1}}')).toBeNull();
    expect(scanId('{"\\u0069d":1}')).toBeNull();
    expect(scanId('{"idx":1,"xid":2}')).toBeNull();
    expect(scanId(`{"id":"${"a".repeat(300)}"}`)).toBeNull();
    expect(scanId('{"id":12')).toBeNull();
  });

  test("the inside of a long string is skipped natively, yet an escaped quote does not end it", () => {
    const text = JSON.stringify({ params: { q: `${"x".repeat(70_000)}"}, "id": 1, "y": "${"\\".repeat(5000)}` }, id: 9 });
    expect(text).toContain('\\"id\\": 1');
    expect(scanId(text, 65_536)).toBe(9);
  });
});

function feed(lines: BoundedLines, text: string | Buffer, step: number): LineEvent[] {
  const bytes = Buffer.from(text);
  const events: LineEvent[] = [];
  for (let i = 0; i < bytes.length; i += step) events.push(...lines.push(bytes.subarray(i, i + step)));
  return events;
}

describe("splitting stdin into bounded lines", () => {
  test("lines end at LF, a CR before it is dropped, and a line waits for its newline", () => {
    const lines = new BoundedLines(100);
    expect(feed(lines, 'a\r\n\nb\n{"c"', 2)).toEqual([
      { kind: "line", text: "a" },
      { kind: "line", text: "" },
      { kind: "line", text: "b" },
    ]);
    expect(lines.pending).toBe(4);
    expect(lines.push(Buffer.from(":1}\n"))).toEqual([{ kind: "line", text: '{"c":1}' }]);
    expect(lines.pending).toBe(0);
  });

  test("a line of exactly the limit is read; one byte more is skipped as it streams, and the next line is read", () => {
    const limit = 1024;
    const exact = `{"id":1,"p":"${"x".repeat(limit - 15)}"}`;
    expect(Buffer.byteLength(exact)).toBe(limit);
    const lines = new BoundedLines(limit);
    expect(feed(lines, `${exact}\n`, 100)).toEqual([{ kind: "line", text: exact }]);

    const long = `{"params":{"q":"${"y".repeat(10 * limit)}"},"id":"big"}`;
    let held = 0;
    const events: LineEvent[] = [];
    const bytes = Buffer.from(`${long}\n{"id":2}\n`);
    for (let i = 0; i < bytes.length; i += 64) {
      events.push(...lines.push(bytes.subarray(i, i + 64)));
      held = Math.max(held, lines.buffered);
    }
    expect(events).toEqual([
      { kind: "too_long", bytes: Buffer.byteLength(long), id: "big" },
      { kind: "line", text: '{"id":2}' },
    ]);
    expect(held).toBeLessThanOrEqual(limit);
    expect(feed(lines, `${"z".repeat(limit + 1)}\n`, 7)).toEqual([{ kind: "too_long", bytes: limit + 1, id: null }]);
  });

  test("a multi-byte character is counted in bytes and never split", () => {
    const lines = new BoundedLines(10);
    expect(feed(lines, "ééééé\nééééé!\n", 1)).toEqual([
      { kind: "line", text: "ééééé" },
      { kind: "too_long", bytes: 11, id: null },
    ]);
  });
});
