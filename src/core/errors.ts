/** Product errors: thrown where the problem is known, rendered once at the edge. */
export type ErrorCode =
  | "not_found"
  | "repository_not_selected"
  | "already_exists"
  | "conflict"
  | "validation_failed"
  | "execution_failed"
  | "unavailable"
  | "usage";

export class ProductError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "ProductError";
  }
}

/** The one table that maps product errors to process exit codes. */
export const exitCodeFor: Record<ErrorCode, number> = {
  not_found: 1,
  repository_not_selected: 1,
  already_exists: 1,
  conflict: 1,
  validation_failed: 1,
  execution_failed: 1,
  unavailable: 3,
  usage: 2,
};

export const notFound = (resource: string, id: string) =>
  new ProductError("not_found", `${resource} not found: ${id}`);

export const invalid = (message: string) => new ProductError("validation_failed", message);

export const conflict = (message: string) => new ProductError("conflict", message);

export function isProductError(error: unknown): error is ProductError {
  return error instanceof ProductError;
}

/** First line of an error's text, falling back to its class name. */
export function oneLine(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? error.message : String(error);
  } catch {
    text = "";
  }
  const first = text.split(/\r?\n/).find((line) => line.trim() !== "")?.trim();
  if (first) return first;
  const name = error instanceof Error ? error.name || error.constructor?.name : undefined;
  return name || "unknown error";
}

/**
 * A file the product keeps (a database under the state root) that cannot be read or
 * written: what is wrong with which file, and what the user can do about it, kept apart
 * so `doctor` can show them on two lines while every command prints them as one.
 */
export class StorageError extends ProductError {
  constructor(
    readonly problem: string,
    readonly fix: string,
  ) {
    super("unavailable", `${problem}; ${fix}`);
    this.name = "StorageError";
  }
}
