import { isProductError, oneLine, type ErrorCode } from "../core/errors.js";
import { PageNotFound } from "../index/views/pages.js";

/** A failure with its HTTP status; every viewer error leaves as `{"error":{code,message}}`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export const NO_WIKI_MESSAGE = "No wikis yet. Run `ca init` in a repository.";

export const noWiki = () => new HttpError(404, "no_wiki", NO_WIKI_MESSAGE);
/** The state root was deleted under the running viewer: nothing it showed exists any more. */
export const stateGone = () =>
  new HttpError(410, "uninstalled", "CodeAlmanac's state directory was deleted (uninstalled?): the wikis this viewer showed are gone. Stop it with Ctrl-C where `ca serve` runs.");
export const badRequest = (message: string) => new HttpError(422, "validation_failed", message);
export const forbidden = (message: string) => new HttpError(403, "forbidden", message);
export const routeNotFound = (method: string, path: string) => new HttpError(404, "not_found", `not found: ${method} ${path}`);

const PRODUCT_STATUS: Record<ErrorCode, number> = {
  not_found: 404,
  repository_not_selected: 404,
  already_exists: 409,
  conflict: 409,
  validation_failed: 422,
  usage: 422,
  execution_failed: 503,
  unavailable: 503,
};

export interface ErrorReply {
  status: number;
  /** `suggestions`: for an unknown page, the slugs of its nearest pages (the client links them). */
  body: { error: { code: string; message: string; suggestions?: string[] } };
  /** Set for unexpected failures: the details belong in the server log, not the reply. */
  internal?: string;
}

export function errorReply(error: unknown): ErrorReply {
  if (error instanceof HttpError) return reply(error.status, error.code, error.message);
  if (error instanceof PageNotFound) {
    return { status: 404, body: { error: { code: "not_found", message: `page not found: ${error.slug}`, suggestions: [...error.suggestions] } } };
  }
  if (isProductError(error)) {
    const code = error.code === "usage" ? "validation_failed" : error.code;
    return reply(PRODUCT_STATUS[error.code], code, oneLine(error));
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : oneLine(error);
  return { ...reply(500, "internal", "internal error"), internal: detail };
}

export function reply(status: number, code: string, message: string): ErrorReply {
  return { status, body: { error: { code, message } } };
}
