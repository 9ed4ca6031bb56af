import { describe, expect, test } from "vitest";
import { BLOCK_END, BLOCK_START, findBlock, managedBlock, removeBlock, upsertBlock } from "../../src/setup/instruction-block.js";

const block = managedBlock();
/** A size, not a time: the block goes into every session's context, so it stays under 2 KB. */
const BLOCK_BYTES_LIMIT = 2048;

describe("the managed instruction block", () => {
  test("is short, and tells agents to search the wiki, trust code over it, cite pages and leave upkeep to ingest, garden and sync", () => {
    expect(Buffer.byteLength(block)).toBeLessThan(BLOCK_BYTES_LIMIT);
    expect(block.startsWith(`${BLOCK_START}\n`)).toBe(true);
    expect(block.endsWith(`\n${BLOCK_END}`)).toBe(true);
    for (const command of ["ca search", "ca show", "ca search --mentions <file>", "ca topics", "ca health", "ca ingest", "ca garden"]) {
      expect(block).toContain(command);
    }
    expect(block).toMatch(/trust the code/);
    expect(block).toMatch(/Cite the pages/);
    expect(block).toMatch(/sync/);
  });

  test("goes into an empty file alone, with a final newline", () => {
    expect(upsertBlock("")).toBe(`${block}\n`);
  });

  test("is appended after a blank line, keeping the user's text byte for byte", () => {
    const mine = "# My rules\n\nUse tabs.  \n\n\n";
    const installed = upsertBlock(mine);
    expect(installed).toBe(`${mine}\n${block}\n`);
    expect(installed.startsWith(mine)).toBe(true);
  });

  test("adds the missing final newline before the blank line", () => {
    expect(upsertBlock("no newline at end")).toBe(`no newline at end\n\n${block}\n`);
  });

  test("is replaced in place, text around it untouched, and a second upsert changes nothing", () => {
    const stale = `before\n\n${BLOCK_START}\nold guidance\n${BLOCK_END}\nafter\n`;
    const updated = upsertBlock(stale);
    expect(updated).toBe(`before\n\n${block}\nafter\n`);
    expect(upsertBlock(updated)).toBe(updated);
  });

  test("follows a file's CRLF line endings", () => {
    const crlf = "rule one\r\nrule two\r\n";
    const installed = upsertBlock(crlf);
    expect(installed).toBe(`${crlf}\r\n${managedBlock("\r\n")}\r\n`);
    expect(installed.replace(/\r\n/g, "")).not.toContain("\n");
    expect(removeBlock(installed)).toBe(crlf);
  });

  test("removal is the exact inverse of appending", () => {
    for (const mine of ["", "# Mine\n", "a\n\nb\n\n", "x\r\ny\r\n"]) {
      expect(removeBlock(upsertBlock(mine))).toBe(mine);
    }
  });

  test("removal from the middle keeps both sides", () => {
    const text = `top\n\n${block}\nbottom\n`;
    expect(removeBlock(text)).toBe("top\nbottom\n");
  });

  test("removal without a block changes nothing", () => {
    expect(removeBlock("plain\n")).toBe("plain\n");
  });

  test("half a block is malformed, not silently extended", () => {
    expect(() => findBlock(`x\n${BLOCK_START}\ny\n`)).toThrow(/start marker without an end marker/);
    expect(() => findBlock(`x\n${BLOCK_END}\n`)).toThrow(/end marker without a start marker/);
    expect(() => upsertBlock(`${BLOCK_START}\n${BLOCK_START}\n${BLOCK_END}\n`)).toThrow(/two start markers/);
    expect(findBlock("nothing here")).toBeNull();
  });
});
