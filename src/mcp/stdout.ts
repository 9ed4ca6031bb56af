import { Writable } from "node:stream";
import { reserveStdout } from "../core/stdio.js";

export interface ProtocolStdout {
  /** The only way to the real stdout: the transport writes protocol messages here. */
  stream: Writable;
  /** Gives stdout back to everyone. */
  release(): void;
}

/**
 * Reserves stdout for protocol messages. A stray write from anywhere else in the
 * process (a library's console.log, a notice) would corrupt the client's message
 * stream, so while the server runs every other write to stdout goes to stderr.
 */
export function claimStdout(): ProtocolStdout {
  const stdout = process.stdout;
  const original = stdout.write;
  const writeOut = original.bind(stdout);
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writeOut(chunk, (error?: Error | null) => done(error ?? null));
    },
  });
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  // The CLI's own writes go straight to the descriptor (src/core/stdio.ts), past the stream.
  reserveStdout(true);
  return {
    stream,
    release: () => {
      stdout.write = original;
      reserveStdout(false);
    },
  };
}
