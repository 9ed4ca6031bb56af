import { describe, expect, test } from "vitest";
import { parseSpec } from "../../src/runs/spec.js";

/** The durable request behind a queued run, as a worker reads it back from the ledger. */

const base = { version: 1, harness: "claude", model: "claude-sonnet-5" };
const parse = (value: unknown) => parseSpec(JSON.stringify(value));

describe("a spec", () => {
  test("gets its defaults: no inputs, no sources, no title or guidance, and auto-commit on", () => {
    expect(parse({ ...base, kind: "garden" })).toEqual({
      ok: true,
      spec: { ...base, kind: "garden", inputs: [], sources: [], title: null, guidance: null, auto_commit: true },
    });
  });

  test("keeps what it was given", () => {
    const given = { ...base, kind: "ingest", inputs: ["notes.md"], sources: [{ kind: "file" }], title: "T", guidance: "G", auto_commit: false };
    expect(parse(given)).toEqual({ ok: true, spec: given });
  });

  test("an ingest run needs an input, and only an ingest run takes inputs", () => {
    expect(parse({ ...base, kind: "ingest" })).toEqual({ ok: false, error: "spec is invalid: inputs: an ingest run needs at least one input" });
    expect(parse({ ...base, kind: "ingest", inputs: [] })).toEqual({ ok: false, error: "spec is invalid: inputs: an ingest run needs at least one input" });
    for (const kind of ["garden", "build"]) {
      expect(parse({ ...base, kind, inputs: ["a.md"] }), kind).toEqual({ ok: false, error: "spec is invalid: inputs: only an ingest run takes inputs" });
      expect(parse({ ...base, kind, inputs: [] }).ok, kind).toBe(true);
    }
  });

  test("only a garden run targets stale pages, and at least one", () => {
    expect(parse({ ...base, kind: "garden", stale_pages: ["concepts/a"] })).toMatchObject({ ok: true, spec: { stale_pages: ["concepts/a"] } });
    expect(parse({ ...base, kind: "garden", stale_pages: [] })).toEqual({ ok: false, error: "spec is invalid: stale_pages: only a garden run targets stale pages, and at least one" });
    expect(parse({ ...base, kind: "build", stale_pages: ["concepts/a"] })).toEqual({ ok: false, error: "spec is invalid: stale_pages: only a garden run targets stale pages, and at least one" });
    expect(parse({ ...base, kind: "garden", stale_pages: [" "] })).toEqual({ ok: false, error: "spec is invalid: stale_pages.0: must not be blank" });
  });

  test("a blank harness, model, input, title or guidance is refused, naming where", () => {
    expect(parse({ ...base, kind: "garden", harness: "  " })).toEqual({ ok: false, error: "spec is invalid: harness: must not be blank" });
    expect(parse({ ...base, kind: "garden", model: "" })).toEqual({ ok: false, error: "spec is invalid: model: must not be blank" });
    expect(parse({ ...base, kind: "ingest", inputs: ["a.md", " "] })).toEqual({ ok: false, error: "spec is invalid: inputs.1: must not be blank" });
    expect(parse({ ...base, kind: "garden", title: "\t" })).toEqual({ ok: false, error: "spec is invalid: title: must not be blank" });
    expect(parse({ ...base, kind: "garden", guidance: " " })).toEqual({ ok: false, error: "spec is invalid: guidance: must not be blank" });
    expect(parse({ ...base, kind: "garden", harness: " x " }).ok).toBe(true);
  });

  test("another version, an unknown kind or something that is no object is refused", () => {
    expect(parse({ ...base, version: 2, kind: "garden" })).toEqual({ ok: false, error: "spec is invalid: version: Invalid input" });
    expect(parse({ ...base, kind: "rebuild" })).toEqual({ ok: false, error: "spec is invalid: kind: Invalid input" });
    for (const value of [null, 5, []]) expect(parse(value), JSON.stringify(value)).toEqual({ ok: false, error: "spec is invalid: Invalid input" });
  });

  test("text that is not JSON is refused as such", () => {
    const parsed = parseSpec("{");
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(/^spec is not valid JSON: \S/);
  });
});
