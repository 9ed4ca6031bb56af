import { HttpError } from "./errors.js";

export interface StreamLimits {
  /** Open job streams one client (a remote address) may hold; a browser keeps at most six connections per host anyway. */
  perClient: number;
  /** Open job streams in all. */
  total: number;
}

export const STREAM_LIMITS: StreamLimits = { perClient: 16, total: 64 };

/**
 * Counts the open job event streams, so a client that opens them without end cannot tie up
 * the server: past a limit the answer is 503 with Retry-After, which the browser client
 * treats like any failed connection (it backs off and tries again).
 */
export class StreamSlots {
  private total = 0;
  private readonly byClient = new Map<string, number>();

  constructor(private readonly limits: StreamLimits = STREAM_LIMITS) {}

  /** A slot for one stream, released by calling what it returns; throws a 503 when none is free. */
  take(client: string): () => void {
    const held = this.byClient.get(client) ?? 0;
    if (held >= this.limits.perClient) throw busy(`this client already follows ${held} jobs (at most ${this.limits.perClient} at once)`);
    if (this.total >= this.limits.total) throw busy(`the viewer already streams ${this.total} jobs (at most ${this.limits.total} at once)`);
    this.total++;
    this.byClient.set(client, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.byClient.get(client) ?? 1) - 1;
      if (left > 0) this.byClient.set(client, left);
      else this.byClient.delete(client);
    };
  }

  get open(): number {
    return this.total;
  }
}

/** Retry-After for a refused stream, in seconds. */
export const STREAM_RETRY_AFTER_S = 5;

function busy(reason: string): HttpError {
  return new HttpError(503, "busy", `${reason}; close a job page or try again shortly`);
}
