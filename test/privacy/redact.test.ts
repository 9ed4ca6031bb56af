import { describe, expect, test } from "vitest";
import { RULE_PREFIXES } from "../../src/privacy/detector.js";
import { redact } from "../../src/privacy/redact.js";
import { nearMisses, secretCases } from "./corpus.js";

/** Whether any 8 characters in a row of the secret are still in the text: a cut-off tail is a leak too. */
function leaks(secret: string, text: string): boolean {
  const width = Math.min(8, secret.length);
  for (let start = 0; start + width <= secret.length; start += 1) if (text.includes(secret.slice(start, start + width))) return true;
  return false;
}

describe("the redactor on the corpus", () => {
  test("every made-up secret is hidden under its kind, and no near-miss is touched", async () => {
    const report: string[] = [];
    const survived: string[] = [];
    const wrongKind: string[] = [];
    for (const sample of secretCases()) {
      const { text, redactions } = await redact(sample.text);
      const hidden = !leaks(sample.secret, text);
      const kinds = redactions.map((r) => `${r.kind}×${r.count}`).join(", ");
      report.push(`${hidden ? "hit " : "MISS"} ${sample.kind.padEnd(22)} → ${kinds || "nothing"}`);
      if (!hidden) survived.push(sample.kind);
      if (!redactions.some((r) => r.kind === sample.kind) || !text.includes(`[redacted: ${sample.kind}]`)) wrongKind.push(`${sample.kind}: ${kinds}`);
    }
    const falsePositives: string[] = [];
    for (const miss of nearMisses()) {
      const { text, redactions } = await redact(miss.text);
      const touched = text !== miss.text || redactions.length > 0;
      report.push(`${touched ? "FALSE POSITIVE" : "kept"} ${miss.name}${touched ? ` → ${redactions.map((r) => r.kind).join(", ")}` : ""}`);
      if (touched) falsePositives.push(miss.name);
    }
    const secrets = secretCases().length;
    console.log(
      `redactor corpus: ${secrets - survived.length}/${secrets} secrets hidden, ${falsePositives.length}/${nearMisses().length} near-misses redacted\n  ${report.join("\n  ")}`,
    );
    expect(survived).toEqual([]);
    expect(wrongKind).toEqual([]);
    expect(falsePositives).toEqual([]);
  });
});

describe("what the redactor keeps and counts", () => {
  test("only the secret goes: the words around it, the URL's host and the variable's name stay", async () => {
    const result = await redact("the deploy used https://ci:Tq8vLm2Zx4Pw@git.acme.test/app.git\nDB_PASSWORD=Tq8vLm2Zx4Pw\nand it worked");
    expect(result.text).toBe(
      "the deploy used https://[redacted: url-credentials]@git.acme.test/app.git\nDB_PASSWORD=[redacted: secret-assignment]\nand it worked",
    );
    expect(result.redactions).toEqual([
      { kind: "url-credentials", count: 1 },
      { kind: "secret-assignment", count: 1 },
    ]);
  });

  test("a secret found by two detectors is one redaction; repeated secrets are counted", async () => {
    const key = `ghp_${"Ab1".repeat(12)}`;
    const result = await redact(`GITHUB_TOKEN=${key}\nagain: ${key}`);
    expect(result.text).not.toContain(key);
    expect(result.redactions.reduce((sum, r) => sum + r.count, 0)).toBe(2);
  });

  test("a private span swallows the secrets inside it", async () => {
    const result = await redact(`a <private>DB_PASSWORD=Tq8vLm2Zx4Pw\nmore</private> b`);
    expect(result).toEqual({ text: "a [redacted: private-span] b", redactions: [{ kind: "private-span", count: 1 }] });
  });

  test("redacting twice changes nothing: a marker is never taken for a secret", async () => {
    for (const sample of secretCases()) {
      const once = await redact(sample.text);
      expect(await redact(once.text)).toEqual({ text: once.text, redactions: [] });
    }
  });

  test("a text with no secret comes back as it was", async () => {
    const text = "nothing to see here\n".repeat(50);
    expect(await redact(text)).toEqual({ text, redactions: [] });
  });
});

describe("the detector's prefilter", () => {
  test("names a literal for every rule of the preset we run, so a rule a preset update brings is never skipped silently", async () => {
    const { rules } = await import("@secretlint/secretlint-rule-preset-recommend");
    const off = ["basicauth", "database-connection-string", "filter-comments", "gcp"];
    const running = rules.map((rule) => rule.meta.id.replace(/^@secretlint\/secretlint-rule-/, "")).filter((id) => !off.includes(id));
    expect(Object.keys(RULE_PREFIXES).sort()).toEqual(running.sort());
  });

  test("a secret far inside a long line, and one right after a key block, are both found", async () => {
    const key = `ghp_${"Zq9".repeat(12)}`;
    const body = Array.from({ length: 40 }, (_, i) => `MII${String(i).padStart(3, "0")}${"Ab+/".repeat(14)}`).join("\n");
    const text = `${"word ".repeat(20_000)}${key} ${"more ".repeat(20_000)}\n-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----\n${key}`;
    const result = await redact(text);
    expect(result.text).not.toContain(key);
    expect(result.text).not.toContain("MII000");
    expect(result.redactions).toEqual([
      { kind: "github-token", count: 2 },
      { kind: "private-key", count: 1 },
    ]);
  });
});
