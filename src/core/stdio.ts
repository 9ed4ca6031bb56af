import { fstatSync, writeSync } from "node:fs";

/**
 * Standard output and error, written without their streams where we can. Node makes
 * `process.stdout` on first touch, and for a pipe, which is how agents read us, that loads
 * `net` and the whole streams library: about 4 ms of a read's start-up (almanac/architecture/cli.md,
 * "Start-up"). The CLI's own process (bin.ts) calls `writeDirectly()`, and from then on a
 * write is a blocking write to the descriptor. The stream is made only when a write cannot
 * go that way (a non-blocking descriptor that is full, or one Node's stream copes with
 * better), or when a terminal's width or kind is asked for. Anywhere else (a test calling
 * `main()` in its own process) every write goes through the streams.
 */
type Fd = 1 | 2;

let direct = false;
/** Descriptors whose stream took over: their writes go there from then on, to keep the order. */
const streamed = new Set<Fd>();
const made: NodeJS.WriteStream[] = [];

export function writeDirectly(): void {
  direct = true;
  quietOnBrokenPipe("stdout");
  quietOnBrokenPipe("stderr");
}

/** While stdout carries a protocol (src/mcp/stdout.ts), what would go there goes to stderr. */
let stdoutReserved = false;

export function reserveStdout(reserved: boolean): void {
  stdoutReserved = reserved;
}

export function writeOut(text: string): void {
  write(stdoutReserved ? 2 : 1, text);
}

export function writeErr(text: string): void {
  write(2, text);
}

function write(fd: Fd, text: string): void {
  if (!direct || streamed.has(fd)) {
    void streamOf(fd).write(text);
    return;
  }
  const bytes = Buffer.from(text);
  let offset = 0;
  try {
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EPIPE") endQuietly();
    // EAGAIN (a non-blocking pipe that is full) and anything stranger: the stream knows how to wait or cope.
    streamed.add(fd);
    void streamOf(fd).write(bytes.subarray(offset));
  }
}

const terminal = new Map<Fd, boolean>();

/** Whether the descriptor is a terminal; only a character device is asked, so a pipe or a file never makes its stream. */
export function isTerminal(fd: Fd): boolean {
  let known = terminal.get(fd);
  if (known === undefined) {
    known = characterDevice(fd) && streamOf(fd).isTTY === true;
    terminal.set(fd, known);
  }
  return known;
}

/** The terminal's width, or undefined when the descriptor is not a terminal. */
export function terminalColumns(fd: Fd): number | undefined {
  return isTerminal(fd) ? streamOf(fd).columns : undefined;
}

/** Resolves once every stream that was made has handed its writes to the system. */
export function flushStreams(): Promise<void> {
  return Promise.all(made.map((stream) => new Promise<void>((resolve) => stream.write("", () => resolve())))).then(() => undefined);
}

function characterDevice(fd: Fd): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

function streamOf(fd: Fd): NodeJS.WriteStream {
  return fd === 1 ? process.stdout : process.stderr;
}

/**
 * A reader that went away (`ca search … | head`) ends the command quietly, as it would for
 * git. The stream, if anything makes it, gets the same rule the moment it is made.
 */
function quietOnBrokenPipe(name: "stdout" | "stderr"): void {
  const descriptor = Object.getOwnPropertyDescriptor(process, name);
  const getter = descriptor?.get;
  if (!descriptor || !getter || !descriptor.configurable) {
    guard(process[name]);
    return;
  }
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: descriptor.enumerable ?? true,
    get() {
      // Node's own getter makes the stream once; hand it back and stay out of the way afterwards.
      Object.defineProperty(process, name, descriptor);
      const stream = getter.call(process) as NodeJS.WriteStream;
      guard(stream);
      return stream;
    },
  });
}

function guard(stream: NodeJS.WriteStream): void {
  made.push(stream);
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    endQuietly();
  });
}

function endQuietly(): never {
  process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
}
