import { describe, expect, test } from "vitest";
import { plainText } from "../../src/wiki/plain-text.js";

describe("plainText", () => {
  test("drops emphasis, code marks and link targets; keeps link and image text", () => {
    expect(plainText("The **worker** reads `worker_lock` (see [the queue](run-queue.md) and ![a diagram](q.png)).")).toBe(
      "The worker reads worker_lock (see the queue and a diagram).",
    );
  });

  test("removes citations but keeps escaped brackets and code that look like them", () => {
    expect(plainText("Takeover is safe [@worker] [@lock-store]. Write \\[@id] or `[@id]` to cite.")).toBe(
      "Takeover is safe. Write [@id] or [@id] to cite.",
    );
    expect(plainText("Grouped [@a; @b] and listed [@c, @d] citations go too.")).toBe("Grouped and listed citations go too.");
  });

  test("a construct cut by the excerpt window stays as written", () => {
    expect(plainText("… the **first half of a [link")).toBe("… the **first half of a [link");
  });

  test("entities are decoded and nothing becomes markup", () => {
    expect(plainText("a &amp; b <script>x</script>")).toBe("a & b <script>x</script>");
  });
});
