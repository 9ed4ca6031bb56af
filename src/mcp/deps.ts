import type { DriftService } from "../evidence/service.js";
import type { WikiIndex } from "../index/service.js";
import type { Receipt } from "../queue/producer.js";
import type { Repository } from "../repositories/model.js";
import type { RepositoryListing } from "../repositories/service.js";
import type { RunRecord } from "../runs/model.js";

/** How `ca mcp` was started. */
export interface McpLaunch {
  /** The server's working directory: without `wiki`, each call selects the wiki from here, as the CLI would. */
  cwd: string;
  /** `--wiki`: every call reads this registered wiki and no other. */
  wiki: string | null;
  /** `--allow-queue`: offer the tools that queue agent runs. */
  allowQueue: boolean;
}

/** What the server needs from the rest of the product; app.ts builds it (see `App.mcp`). */
export interface McpDeps extends McpLaunch {
  repositories: {
    list(): RepositoryListing[];
    select(cwd: string): Repository;
    byName(name: string): Repository;
  };
  openIndex(repository: Repository): WikiIndex;
  /** Drift (git, read in batches): the freshness read_page and search report. */
  drift(): Promise<DriftService>;
  /** Watch almanac/'s folders so an unchanged wiki costs no scan (off on filesystems without change events). */
  watch: boolean;
  /** Present only with `--allow-queue`. */
  queue: QueuePort | null;
  /** One diagnostic line for stderr; stdout belongs to the protocol. */
  log(line: string): void;
  /** How often the server looks for wiki changes to announce (`notifications/resources/list_changed`). */
  changePollMs: number;
}

export interface QueueOptions {
  guidance?: string;
  title?: string;
}

/** The queueing verbs of `ingest`, `garden` and `jobs show`, for one named wiki. */
export interface QueuePort {
  ingest(wiki: string, inputs: string[], options: QueueOptions): Promise<Receipt>;
  garden(wiki: string, options: QueueOptions): Promise<Receipt>;
  run(runId: string): Promise<RunRecord>;
}
