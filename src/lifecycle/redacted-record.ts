/**
 * What the agent reports reaches the ledger and the run log only through the redactor: its
 * tool calls carry what it read and wrote (a `Write`'s whole content, a file it read), and
 * the ledger's events are what `jobs logs`, `jobs attach` and the viewer show. A secret the
 * agent met or wrote is kept there as `[redacted: <kind>]`.
 */
import { redact, type PrivacyRules } from "../privacy/redact.js";

/** `value` with every string in it redacted; numbers, booleans and the shape stay as they are. */
export async function redactStrings<T>(value: T, rules: PrivacyRules): Promise<T> {
  if (typeof value === "string") return (await redact(value, rules)).text as T;
  if (Array.isArray(value)) return (await Promise.all(value.map((item: unknown) => redactStrings(item, rules)))) as T;
  if (value !== null && typeof value === "object") {
    const entries = await Promise.all(Object.entries(value).map(async ([key, item]) => [key, await redactStrings(item, rules)] as const));
    return Object.fromEntries(entries) as T;
  }
  return value;
}

/**
 * Writes that must keep the order they were asked for in, though each waits on the redactor
 * (which is asynchronous): each starts after the one before it ends. The agent's events are
 * delivered synchronously, so the runner queues them here and drains the queue once the
 * agent is done.
 */
export class OrderedWrites {
  private tail: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;

  add(write: () => Promise<void>): void {
    this.tail = this.tail.then(async () => {
      try {
        await write();
      } catch (error) {
        this.failure ??= { error };
      }
    });
  }

  /** Resolves once every write asked for so far has ended. */
  async settled(): Promise<void> {
    await this.tail;
  }

  /** As `settled`, then rejects with the first write's failure, if one failed. */
  async drain(): Promise<void> {
    await this.tail;
    if (this.failure) throw this.failure.error;
  }
}
