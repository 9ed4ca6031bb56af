import { describe, expect, test } from "vitest";

interface Part {
  code: boolean;
  text: string;
}

/** The client's formatter is plain browser JavaScript without types: loaded as it is served. */
const formatUrl = new URL("../../src/viewer/assets/js/format.js", import.meta.url).href;
const { inlineParts } = (await import(formatUrl)) as { inlineParts(text: string): Part[] };

const plain = (text: string) =>
  inlineParts(text)
    .map((part) => part.text)
    .join("");

describe("the client's inline formatter (job summaries, errors, page summaries)", () => {
  test("identifiers with underscores stay literal: a user copies the variable's real name (issue 18)", () => {
    expect(plain("Set ANTHROPIC_API_KEY, then retry")).toBe("Set ANTHROPIC_API_KEY, then retry");
    expect(plain("run_queue and snake_case_word and _private_var")).toBe("run_queue and snake_case_word and _private_var");
    expect(plain("OPENAI_API_KEY or CODEX_API_KEY")).toBe("OPENAI_API_KEY or CODEX_API_KEY");
  });

  test("emphasis marks around words go, as CommonMark reads them", () => {
    expect(plain("**bold**, *em*, _em_ and __strong__")).toBe("bold, em, em and strong");
    expect(plain("a _quoted_word_ here")).toBe("a quoted_word here");
    expect(plain("escaped \\_marks\\_ and \\*stars\\*")).toBe("escaped _marks_ and *stars*");
    expect(plain("2 * 3 * 4 and a lone * star")).toBe("2 * 3 * 4 and a lone * star");
  });

  test("code spans are literal pieces of their own; unpaired backticks are text", () => {
    expect(inlineParts("set `ANTHROPIC_API_KEY` or run `claude auth login`")).toEqual([
      { code: false, text: "set " },
      { code: true, text: "ANTHROPIC_API_KEY" },
      { code: false, text: " or run " },
      { code: true, text: "claude auth login" },
    ]);
    expect(inlineParts("`__init__` and `*glob*`")).toEqual([
      { code: true, text: "__init__" },
      { code: false, text: " and " },
      { code: true, text: "*glob*" },
    ]);
    expect(inlineParts("``a`b`` then")).toEqual([
      { code: true, text: "a`b" },
      { code: false, text: " then" },
    ]);
    expect(inlineParts("an unpaired ` tick and a_b")).toEqual([{ code: false, text: "an unpaired ` tick and a_b" }]);
  });
});
