import { afterEach, describe, expect, test } from "vitest";
import { sandbox, type Sandbox } from "../support/cli.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

describe("the background entry points answer a usage error like every other command", () => {
  test.each([
    [["__run-worker", "--bogus"], "codealmanac: unknown option --bogus; usage: __run-worker [--max-runs <n>] (lifecycle commands start it)"],
    [["__run-worker", "stray"], "codealmanac: unexpected argument stray; usage: __run-worker [--max-runs <n>] (lifecycle commands start it)"],
    [["__run-worker", "--max-runs"], "codealmanac: --max-runs needs a value; usage: __run-worker [--max-runs <n>] (lifecycle commands start it)"],
    [["__run-worker", "--max-runs", "0"], "codealmanac: --max-runs must be a positive integer, got 0"],
    [["__run-worker", "--cwd", "/tmp"], "codealmanac: unknown option --cwd; usage: __run-worker [--max-runs <n>] (lifecycle commands start it)"],
    [["__run-executor"], "codealmanac: usage: __run-executor --standby (the worker starts it and writes its run to stdin)"],
    [["__run-executor", "--standby", "--bogus"], "codealmanac: unknown option --bogus; usage: __run-executor --standby (the worker starts it and writes its run to stdin)"],
  ])("%j: one line on stderr, exit 2, nothing started", (args, line) => {
    box = sandbox();
    const result = box.run(args);
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 2, stdout: "", stderr: `${line}\n` });
  });
});
