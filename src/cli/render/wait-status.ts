/**
 * The one status line a follower (`jobs attach`, `--wait`) shows while its run waits:
 * queued behind other runs, or running with no new event for a while. On a terminal it
 * is drawn in place and removed before the next real output; elsewhere (a pipe, CI) it
 * is a whole line, at most one per interval.
 */

/** What the follower knows about the wait at one poll. */
export interface WaitState {
  status: "queued" | "running";
  /** Queued: runs that will run first (queued before it, or running). */
  ahead: number;
  /** The agent has reported something and not yet its end: the run waits for it. */
  agent: string | null;
  /** When the wait began: the run's creation when queued, else its last event or state change. */
  since: number;
}

/** The line, e.g. `waiting for claude: no output for 2m 10s` or `queued: 2 runs ahead, waiting 40s`. */
export function waitStatusText(state: WaitState, now: number): string {
  const waited = clockDuration(now - state.since);
  if (state.status === "queued") {
    const ahead = state.ahead > 0 ? `${state.ahead} ${state.ahead === 1 ? "run" : "runs"} ahead, ` : "";
    return `queued: ${ahead}waiting ${waited}`;
  }
  if (state.agent) return `waiting for ${state.agent}: no output for ${waited}`;
  return `running: no new event for ${waited}`;
}

/** `40s`, `2m 10s`, `1h 5m`: seconds until an hour, then minutes. */
export function clockDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

export interface StatusLineOptions {
  /** The stream it writes to is a terminal: draw in place. */
  tty: boolean;
  now: () => number;
  write: (text: string) => void;
  /** Not a terminal: a line only after this long without news, and at most one this often. */
  intervalMs: number;
  /** The terminal's width, when known: a longer line would wrap and could not be redrawn. */
  columns?: () => number | undefined;
  dim?: (text: string) => string;
}

/** On a terminal, a queued run shows at once; a running one after this much silence, so a working agent does not make it flicker. */
const TTY_QUIET_MS = 5_000;

const CLEAR_LINE = "\r\x1b[K";

export class StatusLine {
  /** What is drawn on the terminal now ("" when nothing). */
  private drawn = "";
  /** Not a terminal: when the last line was written. */
  private lastLineAt: number | null = null;

  constructor(private readonly options: StatusLineOptions) {}

  /** Called on every poll with the wait, or null when there is none (the run ended). */
  update(state: WaitState | null): void {
    const now = this.options.now();
    if (!state) return this.clear();
    const waited = now - state.since;
    if (this.options.tty) {
      const quiet = state.status === "queued" ? 0 : TTY_QUIET_MS;
      if (waited < quiet) return this.clear();
      return this.draw(this.fit(waitStatusText(state, now)));
    }
    const { intervalMs } = this.options;
    if (waited < intervalMs || (this.lastLineAt !== null && now - this.lastLineAt < intervalMs)) return;
    this.lastLineAt = now;
    this.options.write(`${waitStatusText(state, now)}\n`);
  }

  /** Removes the drawn line: before any real output, and when the follow ends. */
  clear(): void {
    if (this.drawn === "") return;
    this.drawn = "";
    this.options.write(CLEAR_LINE);
  }

  private draw(text: string): void {
    if (text === this.drawn) return;
    this.drawn = text;
    this.options.write(`${CLEAR_LINE}${this.options.dim ? this.options.dim(text) : text}`);
  }

  private fit(text: string): string {
    const columns = this.options.columns?.();
    if (!columns || columns < 2 || [...text].length < columns) return text;
    return `${[...text].slice(0, columns - 2).join("")}…`;
  }
}
