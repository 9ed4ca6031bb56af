import { afterEach, describe, expect, test } from "vitest";
import { claimStdout } from "../../src/mcp/stdout.js";
import { writeOut } from "../../src/core/stdio.js";

const realOut = process.stdout.write;
const realErr = process.stderr.write;
afterEach(() => {
  process.stdout.write = realOut;
  process.stderr.write = realErr;
});

/** Replaces a stream's write with a recorder (chunks as text; callbacks called). */
function record(stream: NodeJS.WriteStream): string[] {
  const chunks: string[] = [];
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    chunks.push(Buffer.from(chunk).toString("utf8"));
    const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    done?.();
    return true;
  }) as typeof stream.write;
  return chunks;
}

describe("the server's claim on stdout", () => {
  test("while claimed, only the protocol stream reaches stdout; every other write goes to stderr", async () => {
    const out = record(process.stdout);
    const err = record(process.stderr);
    const claimed = claimStdout();
    process.stdout.write("a stray line\n");
    // The CLI's own writer too, which in the CLI's process goes straight to the descriptor.
    writeOut("a stray CLI line\n");
    await new Promise<void>((resolve) => claimed.stream.write('{"jsonrpc":"2.0"}\n', () => resolve()));
    claimed.release();
    process.stdout.write("after release\n");
    writeOut("the CLI after release\n");
    expect(out).toEqual(['{"jsonrpc":"2.0"}\n', "after release\n", "the CLI after release\n"]);
    expect(err).toEqual(["a stray line\n", "a stray CLI line\n"]);
  });
});
