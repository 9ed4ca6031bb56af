import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { driftedWiki, STALE_REASON } from "../support/drift.js";
import { expectOk, sharedSandbox } from "./helpers.js";

interface Issue {
  category: string;
  severity: string;
  message: string;
  page: string | null;
}

describe("readers see freshness (a git repository whose code moved under one page)", () => {
  const shared = sharedSandbox((box) => driftedWiki(box.dir));
  const run = (args: string[], env: NodeJS.ProcessEnv = {}) => shared.box().run(args, { cwd: shared.fixture().root, env });

  test("show prints one stale line under the title of a stale page, naming the change, and none for a fresh page", () => {
    const lines = expectOk(run(["show", "queue/worker"])).stdout.split("\n");
    expect(lines.slice(0, 3)).toEqual(["slug:       queue/worker", "title:      Worker", `stale:      ${STALE_REASON}`]);
    expect(lines.filter((line) => line.startsWith("stale:"))).toHaveLength(1);
    const fresh = expectOk(run(["show", "queue/ledger"])).stdout;
    expect(fresh.split("\n").slice(0, 3)).toEqual(["slug:       queue/ledger", "title:      Ledger", "summary:    Where runs wait"]);
    expect(fresh).not.toMatch(/^stale:/m);
  });

  test("show --json carries freshness: status, reason and the commit it was verified at", () => {
    const { verified } = shared.fixture();
    expect(expectOk(run(["show", "queue/worker", "--json"])).json<{ freshness: unknown }>().freshness).toEqual({
      status: "stale",
      reason: STALE_REASON,
      verified_at: verified,
    });
    expect(expectOk(run(["show", "queue/ledger", "--json"])).json<{ freshness: unknown }>().freshness).toEqual({
      status: "fresh",
      reason: null,
      verified_at: verified,
    });
  });

  test("the one-part views are for piping: --meta is the whole view's header without the stale line, and no other part has one", () => {
    const whole = expectOk(run(["show", "queue/worker"])).stdout;
    const header = whole.slice(0, whole.indexOf("\n---\n"));
    expect(header).toContain(`\nstale:      ${STALE_REASON}\n`);
    expect(expectOk(run(["show", "queue/worker", "--meta"])).stdout).toBe(header.replace(`stale:      ${STALE_REASON}\n`, ""));
    for (const flag of ["--body", "--lead", "--files"]) {
      const result = expectOk(run(["show", "queue/worker", flag]));
      expect(result.stdout).not.toContain("stale");
      expect(result.stderr).toBe("");
    }
  });

  test("without git on PATH show still works: freshness is unknown, never an error", () => {
    const empty = join(shared.box().dir, "no-git-bin");
    mkdirSync(empty, { recursive: true });
    const result = expectOk(run(["show", "queue/worker", "--json"], { PATH: empty }));
    expect(result.json<{ freshness: { status: string } }>().freshness.status).toBe("unknown");
    expect(result.stderr).toBe("");
    expect(expectOk(run(["show", "queue/worker"], { PATH: empty })).stdout).not.toMatch(/^stale:/m);
  });

  test("health lists the stale page with its reason, in text and --json", () => {
    expect(expectOk(run(["health", "--json"])).json<{ stale_pages: unknown }>().stale_pages).toEqual([{ slug: "queue/worker", reason: STALE_REASON }]);
    expect(expectOk(run(["health"])).stdout).toContain(`stale-pages (1):\n  queue/worker  ${STALE_REASON}\n`);
  });

  test("validate reports the stale page as a warning: exit 0, and 1 only with --strict", () => {
    const plain = expectOk(run(["validate", "--json"])).json<{ issues: Issue[]; errors: number; warnings: number; ok: boolean }>();
    expect(plain.issues).toContainEqual(expect.objectContaining({ category: "stale_pages", severity: "warning", page: "queue/worker", message: `stale: ${STALE_REASON}` }));
    expect(plain.issues.filter((issue) => issue.category === "stale_pages")).toHaveLength(1);
    expect(plain).toMatchObject({ errors: 0, ok: true });
    expect(expectOk(run(["validate"])).stdout).toContain(`queue/worker stale: ${STALE_REASON} (stale_pages)`);
    const strict = run(["validate", "--strict", "--json"]);
    expect(strict.code).toBe(1);
    expect(strict.json<{ warnings: number; ok: boolean }>()).toMatchObject({ warnings: plain.warnings, ok: false });
  });
});
