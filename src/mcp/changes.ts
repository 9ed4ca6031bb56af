import { isProductError, oneLine } from "../core/errors.js";
import type { WikiState } from "./resources.js";
import type { Wikis } from "./wikis.js";

export interface ChangeWatchDeps {
  wikis: Wikis;
  /** Sends `notifications/resources/list_changed`. */
  announce(): void;
  everyMs: number;
  log(line: string): void;
}

/**
 * Tells the client when the wiki it reads changed, so it can list the resources again.
 * Every interval the selected wiki is brought up to date (free while its folder watches
 * saw nothing) and its generation compared with the last one the client was told about.
 * A wiki appearing, disappearing or being switched counts as a change too.
 */
export class ChangeWatch {
  /** `<repository id>:<generation>`, or "none"; undefined until first observed. */
  private known: string | undefined;
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;

  constructor(private readonly deps: ChangeWatchDeps) {}

  /** The client has just been given the list as of this state (a resources/list answer). */
  seen(state: WikiState | null): void {
    this.known = stateKey(state);
  }

  start(): void {
    void this.tick();
    this.timer = setInterval(() => void this.tick(), this.deps.everyMs);
    // The open stdin keeps the process alive while a client is connected, not this timer.
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const state = await this.current();
      if (this.known === undefined) this.known = state;
      else if (state !== this.known) {
        this.known = state;
        this.deps.announce();
      }
    } finally {
      this.ticking = false;
    }
  }

  private async current(): Promise<string> {
    try {
      const wiki = await this.deps.wikis.open();
      return stateKey({ repositoryId: wiki.repository.repositoryId, generation: wiki.live.generation });
    } catch (error) {
      if (!isProductError(error)) this.deps.log(`codealmanac mcp: watching the wiki failed: ${oneLine(error)}`);
      return stateKey(null);
    }
  }
}

function stateKey(state: WikiState | null): string {
  return state === null ? "none" : `${state.repositoryId}:${state.generation}`;
}
