import { describe, expect, test } from "vitest";
import { choiceParam, countParam, flagParam, limitParam, repositoryPathParam, runIdParam } from "../../src/viewer/params.js";
import { HttpError } from "../../src/viewer/errors.js";

/** The viewer's query and path parameters, checked where they enter: a bad one is a 422 naming it. */

function refusal(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    if (error instanceof HttpError) return `${error.status} ${error.code}: ${error.message}`;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("counts", () => {
  const options = { fallback: 7, max: 100 };

  test("absent is the fallback; digits (trimmed) are the number, from 0 up to the maximum itself", () => {
    expect(countParam(undefined, "after", options)).toBe(7);
    expect(countParam("0", "after", options)).toBe(0);
    expect(countParam(" 42 ", "after", options)).toBe(42);
    expect(countParam("100", "after", options)).toBe(100);
    expect(countParam("007", "after", options)).toBe(7);
    expect(countParam("999999999999999", "after", { fallback: 0, max: Number.MAX_SAFE_INTEGER })).toBe(999_999_999_999_999);
  });

  test("above the maximum, negative, fractional, blank, not a number or over 15 digits is refused, naming the parameter", () => {
    expect(refusal(() => countParam("101", "after", options))).toBe('422 validation_failed: invalid after "101": it must be an integer from 0 to 100');
    for (const value of ["-1", "1.5", "", " ", "1e2", "0x10", "ten", "Infinity", "1 2"]) {
      expect(refusal(() => countParam(value, "after", options)), value).toBe(`422 validation_failed: invalid after "${value}": it must be an integer from 0 to 100`);
    }
    expect(refusal(() => countParam("1234567890123456", "after", { fallback: 0, max: Number.MAX_SAFE_INTEGER }))).toContain('invalid after "1234567890123456"');
  });

  test("a limit is a count named limit", () => {
    expect(limitParam(undefined, options)).toBe(7);
    expect(limitParam("3", options)).toBe(3);
    expect(refusal(() => limitParam("x", options))).toBe('422 validation_failed: invalid limit "x": it must be an integer from 0 to 100');
  });
});

describe("run ids", () => {
  test("letters, digits, - and _, up to 200 characters", () => {
    expect(runIdParam("ingest-20260101000000_abc")).toBe("ingest-20260101000000_abc");
    expect(runIdParam("a".repeat(200))).toBe("a".repeat(200));
  });

  test("anything else is refused, naming it", () => {
    for (const value of ["", "a/b", "../x", "a b", "a.b", "a".repeat(201), "é"]) {
      expect(refusal(() => runIdParam(value)), value).toBe(`422 validation_failed: invalid run id "${value}": it must match ^[A-Za-z0-9_-]+$`);
    }
  });
});

describe("flags", () => {
  test("absent is off; 1, true and yes are on and 0, false, no and empty are off, in any case and trimmed", () => {
    expect(flagParam(undefined, "descendants")).toBe(false);
    for (const value of ["1", "true", "yes", " YES ", "True"]) expect(flagParam(value, "descendants"), value).toBe(true);
    for (const value of ["0", "false", "no", "", " No "]) expect(flagParam(value, "descendants"), value).toBe(false);
  });

  test("any other value is refused, naming the flag", () => {
    expect(refusal(() => flagParam("maybe", "descendants"))).toBe('422 validation_failed: invalid descendants "maybe": use 1 or 0');
    expect(refusal(() => flagParam("2", "descendants"))).toBe('422 validation_failed: invalid descendants "2": use 1 or 0');
  });
});

describe("choices", () => {
  const allowed = ["queued", "running", "done"] as const;

  test("repeated or comma-separated, trimmed and lower-cased, in the order given", () => {
    expect(choiceParam(["done,Queued", " RUNNING "], allowed, "status")).toEqual(["done", "queued", "running"]);
    expect(choiceParam(["done"], allowed, "status")).toEqual(["done"]);
  });

  test("absent or empty means no filter", () => {
    expect(choiceParam([], allowed, "status")).toBeUndefined();
    expect(choiceParam([""], allowed, "status")).toBeUndefined();
    expect(choiceParam([" , ,"], allowed, "status")).toBeUndefined();
  });

  test("a value outside the set is refused, naming the first bad one and the set", () => {
    expect(refusal(() => choiceParam(["done,stuck", "gone"], allowed, "status"))).toBe('422 validation_failed: invalid status "stuck": expected queued, running, done');
  });
});

describe("repository paths", () => {
  test("a repository-relative file or folder is normalized as file sources are, a folder keeping its slash", () => {
    expect(repositoryPathParam("src/app.ts")).toBe("src/app.ts");
    expect(repositoryPathParam(" src/ ")).toBe("src/");
    expect(repositoryPathParam("./src")).toBe("src");
    expect(repositoryPathParam("src//lib/./x.ts")).toBe("src/lib/x.ts");
    expect(repositoryPathParam("src/.")).toBe("src/");
    expect(repositoryPathParam("a..b/c")).toBe("a..b/c");
    expect(repositoryPathParam("src\\app.ts")).toBe("src/app.ts");
    expect(repositoryPathParam("notes/a:b.md")).toBe("notes/a:b.md");
  });

  test("absent, blank, absolute, home-relative, drive-letter, climbing or root-only paths are refused", () => {
    for (const value of ["", "  ", "/etc/passwd", "\\server\\x", "C:/x", "c:x", "~", "~/x", "a/../b", "..", "a\\..\\b", ".", "./", "./.", "//"]) {
      expect(refusal(() => repositoryPathParam(value)), value).toBe(`422 validation_failed: invalid path "${value}": file path must be repo-relative`);
    }
    expect(refusal(() => repositoryPathParam(undefined))).toBe('422 validation_failed: invalid path "": file path must be repo-relative');
  });
});
