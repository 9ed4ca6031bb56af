import { ProductError, isProductError, invalid } from "../core/errors.js";
import { LiveIndexes, type LiveIndex } from "../index/freshness.js";
import type { WikiIndex } from "../index/service.js";
import { almanacPathFor, repositoryStatus } from "../repositories/identity.js";
import type { Repository } from "../repositories/model.js";
import type { RepositoryListing } from "../repositories/service.js";
import type { McpDeps } from "./deps.js";
import { closeNames, didYouMean } from "../core/suggest.js";

/** A wiki ready to read: its index brought up to date for this call. */
export interface OpenWiki {
  repository: Repository;
  live: LiveIndex;
  index: WikiIndex;
}

/** Registered wikis named in the no-wiki message; list_wikis has the rest. */
const NAMED_WIKIS = 5;

/**
 * Every tool takes a `wiki` argument, which reads a registered wiki from anywhere: the
 * message says so first, and names the wikis there are (or that there are none yet).
 */
export function noWikiMessage(cwd: string, registered: readonly string[]): string {
  const names =
    registered.length === 0
      ? "none is registered yet"
      : `registered: ${registered.slice(0, NAMED_WIKIS).join(", ")}${registered.length > NAMED_WIKIS ? `, … (${registered.length} in all)` : ""}`;
  return `No wiki here: no almanac/ in ${cwd} or any folder above it. Pass a registered wiki's name as the tool's \`wiki\` argument (list_wikis lists them; ${names}), start the server with \`--wiki <name>\`, or create a wiki with \`ca init\` in the repository.`;
}

/**
 * Which wiki a call reads, and its open index. Selection is the CLI's (walk up from the
 * server's directory, or the `--wiki` pin) and happens on every call, so a wiki created,
 * moved or deleted while the server runs is noticed. Index handles stay open between
 * calls; each call refreshes at most once, and only when something may have changed
 * (see src/index/freshness.ts).
 */
export class Wikis {
  private readonly live: LiveIndexes;

  constructor(private readonly deps: Pick<McpDeps, "cwd" | "wiki" | "repositories" | "openIndex" | "watch">) {
    this.live = new LiveIndexes({ open: (repository) => deps.openIndex(repository), watch: deps.watch });
  }

  /** The wiki a call without a `wiki` argument reads, or the one it names. */
  repository(requested?: string): Repository {
    const { deps } = this;
    if (deps.wiki !== null) {
      const pinned = this.named(deps.wiki, (hint) => `(this server was started with --wiki ${deps.wiki}${hint}); restart it with a registered wiki's name (\`ca list\` names them)`);
      if (requested !== undefined && this.named(requested).repositoryId !== pinned.repositoryId) {
        throw invalid(`this server reads only the wiki "${pinned.name}" (it was started with --wiki ${deps.wiki})`);
      }
      return pinned;
    }
    if (requested !== undefined) return this.named(requested);
    try {
      return deps.repositories.select(deps.cwd);
    } catch (error) {
      if (isProductError(error) && error.code === "repository_not_selected") {
        throw new ProductError("repository_not_selected", noWikiMessage(deps.cwd, this.registeredNames()));
      }
      throw error;
    }
  }

  /**
   * A registered wiki by name. An unknown name is "wiki not found" (what the tools call a
   * repository), with close names and where to find the others: list_wikis, unless the
   * server is pinned to one that does not exist and says what to do instead.
   */
  private named(name: string, pinned?: (hint: string) => string): Repository {
    try {
      return this.deps.repositories.byName(name);
    } catch (error) {
      if (!isProductError(error) || error.code !== "not_found") throw error;
      const close = closeNames(name.trim(), this.registeredNames());
      const where = pinned
        ? ` ${pinned(close.length > 0 ? `; did you mean ${close.join(", ")}?` : "")}`
        : `${didYouMean(close)}; list_wikis lists the wikis this server reads`;
      throw new ProductError("not_found", `wiki not found: ${name.trim()}${where}`);
    }
  }

  private registeredNames(): string[] {
    return this.deps.repositories.list().map((listing) => listing.repository.name);
  }

  /** The name of the wiki calls read by default, or null when there is none. */
  defaultName(): string | null {
    try {
      return this.repository().name;
    } catch {
      return null;
    }
  }

  /** The registered wikis a call may read: all of them, or only the pinned one. */
  visible(): RepositoryListing[] {
    const listings = this.deps.repositories.list();
    if (this.deps.wiki === null) return listings;
    const pinned = this.defaultName();
    return listings.filter((listing) => listing.repository.name === pinned);
  }

  /** The wiki a call reads, refused when its folder is gone. */
  available(requested?: string): Repository {
    const repository = this.repository(requested);
    const status = repositoryStatus(repository.rootPath);
    if (status !== "available") {
      this.live.drop(repository.repositoryId);
      const missing = status === "missing_repo" ? repository.rootPath : almanacPathFor(repository.rootPath);
      throw new ProductError(
        "not_found",
        `the wiki "${repository.name}" is gone: ${missing} no longer exists (restore it, or drop the registration with \`ca forget ${repository.name}\`)`,
      );
    }
    return repository;
  }

  async open(requested?: string): Promise<OpenWiki> {
    const repository = this.available(requested);
    const live = this.live.get(repository);
    await live.ensureFresh();
    return { repository, live, index: live.index };
  }

  close(): void {
    this.live.close();
  }
}
