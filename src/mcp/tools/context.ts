import type { DriftService } from "../../evidence/service.js";
import type { QueuePort } from "../deps.js";
import type { Wikis } from "../wikis.js";

/** What the tools read through. */
export interface ToolContext {
  wikis: Wikis;
  queue: QueuePort | null;
  drift(): Promise<DriftService>;
}
