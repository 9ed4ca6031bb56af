import { describe, expect, test } from "vitest";
import { findSecrets, redact, userPatternProblem } from "../../src/privacy/redact.js";
import { nearMisses, secretCases } from "./corpus.js";

describe("findSecrets: where each secret is, never what", () => {
  test("every corpus secret but a <private> span is found on its own line, under the kind redact names it by", async () => {
    const cases = secretCases().filter((sample) => sample.kind !== "private-span");
    const lines = ["# Notes", ""];
    const startLine = cases.map((sample) => {
      const start = lines.length + 1;
      lines.push(...sample.text.split("\n"), "");
      return start;
    });
    const findings = await findSecrets(lines.join("\n"));
    for (const [index, sample] of cases.entries()) {
      const span = sample.text.split("\n").length;
      const near = findings.filter((f) => f.line >= startLine[index]! && f.line < startLine[index]! + span);
      expect(near.map((f) => f.kind), sample.kind).toContain(sample.kind);
    }
    const reported = JSON.stringify(findings);
    for (const sample of cases) expect(reported).not.toContain(sample.secret.slice(0, 8));
    for (const finding of findings) expect(Object.keys(finding).sort()).toEqual(["column", "kind", "line"]);
  });

  test("a <private> span is hidden from prompts but is not a secret in a page", async () => {
    const text = "the syntax is `<private>…</private>`; an unclosed `<private>` hides the rest";
    expect(await findSecrets(text)).toEqual([]);
    expect((await redact(text)).text).not.toContain("hides the rest");
  });

  test("no near-miss is reported", async () => {
    for (const miss of nearMisses()) expect(await findSecrets(miss.text), miss.name).toEqual([]);
  });

  test("line and column are 1-based and point at the start of the secret; one finding per secret", async () => {
    const key = `ghp_${"Ab1".repeat(12)}`;
    const findings = await findSecrets(`first line\n  GITHUB_TOKEN=${key}\nthird`);
    expect(findings).toEqual([{ line: 2, column: 16, kind: expect.any(String) }]);
  });

  test("the user's own patterns hide and report their matches", async () => {
    const rules = { patterns: ["ACME-[0-9]{6}"] };
    expect((await redact("ticket ACME-123456 closed", rules)).text).toBe("ticket [redacted: user-pattern] closed");
    expect(await findSecrets("ok\nticket ACME-123456", rules)).toEqual([{ line: 2, column: 8, kind: "user-pattern" }]);
    expect(await findSecrets("ticket ACME-123456")).toEqual([]);
  });

  test("a user pattern must compile and must not match the empty string", () => {
    expect(userPatternProblem("ACME-[0-9]{6}")).toBeNull();
    expect(userPatternProblem("ACME-[0-9")).toMatch(/^is not a valid regular expression/);
    expect(userPatternProblem("a*")).toBe("matches the empty string");
    expect(userPatternProblem("  ")).toBe("is empty");
  });
});

describe("a private key block cut off before its END line", () => {
  test("ends where its body ends, not at the next block's END", async () => {
    const body = "MIIEvQtGAkCwuU3SaTXKq/0AwzPIwkeHbMCY+8hkpn4iBxk0rmVQBc2/NA2QRt2e";
    const text = `-----BEGIN PRIVATE KEY-----\n${body}\n(output truncated)\nkeep this line\n-----BEGIN EC PRIVATE KEY-----\n${body}\n-----END EC PRIVATE KEY-----`;
    const { text: redacted } = await redact(text);
    expect(redacted).toBe("[redacted: private-key]\n(output truncated)\nkeep this line\n[redacted: private-key]");
  });
});

describe("values with spaces and quotes", () => {
  test("a quoted assignment is hidden to its closing quote", async () => {
    expect((await redact(`API_KEY="correct horse battery staple"\nnext`)).text).toBe(`API_KEY="[redacted: secret-assignment]"\nnext`);
    expect((await redact(`export DB_PASSWORD='two words'`)).text).toBe(`export DB_PASSWORD='[redacted: secret-assignment]'`);
    const escaped = JSON.stringify({ content: `cat .env\nAPI_TOKEN="alpha beta gamma"\nPORT=1` }).slice(1, -1);
    const result = (await redact(escaped)).text;
    expect(result).not.toContain("beta");
    expect(result).toContain("PORT=1");
  });

  test("a Digest authorization is hidden whole, past its quoted parameters", async () => {
    const header = 'Digest username="deploy", realm="acme", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", response="6629fae49393a05397450978507c4ef1"';
    const raw = (await redact(`GET / HTTP/1.1\nAuthorization: ${header}\nAccept: */*`)).text;
    expect(raw).toBe("GET / HTTP/1.1\nAuthorization: [redacted: authorization-header]\nAccept: */*");
    const json = (await redact(JSON.stringify({ headers: { Authorization: header, Accept: "*/*" } }))).text;
    expect(json).toBe('{"headers":{"Authorization":"[redacted: authorization-header]","Accept":"*/*"}}');
  });
});
