import { describe, expect, test } from "vitest";
import { colorFor, createStyle } from "../../src/cli/render/style.js";

describe("terminal styles", () => {
  test("without colour every style hands back the text as it is", () => {
    const s = createStyle(false);
    const text = "plain \x1b[22m text";
    expect([s.bold, s.dim, s.blue, s.green, s.red, s.yellow].map((style) => style(text))).toEqual(Array(6).fill(text));
  });

  test("a bold or dim text that holds another keeps its own weight after the inner one ends", () => {
    const s = createStyle(true);
    expect(s.dim(`a ${s.bold("b")} c`)).toBe("\x1b[2ma \x1b[1mb\x1b[22m\x1b[2m c\x1b[22m");
    expect(s.bold("x")).toBe("\x1b[1mx\x1b[22m");
    expect(s.yellow("warning")).toBe("\x1b[33mwarning\x1b[39m");
  });

  test("colour only for a terminal, and never with NO_COLOR, even empty", () => {
    expect(colorFor(true, {})).toBe(true);
    expect(colorFor(false, {})).toBe(false);
    expect(colorFor(true, { NO_COLOR: "" })).toBe(false);
  });
});
