/**
 * A source that could not be prepared when the run started. The message is one line,
 * `<address>: <reason>`; the runner fails the run in its `source_preparation` phase with it.
 */
export class SourcePreparationError extends Error {
  constructor(
    readonly address: string,
    readonly reason: string,
  ) {
    super(`${address}: ${reason}`);
    this.name = "SourcePreparationError";
  }
}

/** A run-time problem with one source, raised by a preparer and addressed by the service. */
export class SourceUnavailable extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "SourceUnavailable";
  }
}

export const unavailable = (reason: string) => new SourceUnavailable(reason);
