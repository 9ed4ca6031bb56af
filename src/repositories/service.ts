import { dirname } from "node:path";
import { ProductError, invalid, notFound } from "../core/errors.js";
import { kebab } from "../core/kebab.js";
import type { Repository } from "./model.js";
import type { Registration, RepositoryStore } from "./store.js";
import {
  almanacPathFor,
  isInitializedRoot,
  normalizeRoot,
  repositoryIdFor,
  repositoryStatus,
  type RepositoryStatus,
} from "./identity.js";
import { basename } from "node:path";
import { Affiliator } from "./affiliation.js";
import { recoverRegistrations, type Recovery, type RecordedWikis } from "./recovery.js";

export interface RepositoryListing {
  repository: Repository;
  status: RepositoryStatus;
}

export interface RepositoriesDeps {
  store: RepositoryStore;
  now: () => number;
  /** One advisory line for stderr (name-clash notices). */
  notice: (line: string) => void;
  /** Counts queued or running runs of a repository (the run ledger answers). */
  activeRunCount: (repositoryId: string) => number;
  /** Deletes derived state (the per-repository index). */
  removeDerivedState: (repositoryId: string) => void;
  /** The wikis the state root holds derived state for, and what each recorded about itself. */
  recorded: Omit<RecordedWikis, "remove">;
  /** Where the registry and the derived state live, for the notice of a recovery. */
  locations: { database: string; repos: string };
}

export const NO_REPOSITORY_MESSAGE =
  "No repository selected. Run inside a repository with an almanac/ wiki, or pass --wiki <name>.";

export class RepositoriesService {
  constructor(private readonly deps: RepositoriesDeps) {}

  /**
   * Selection walks up from the cwd like git: the nearest registered root, or the
   * nearest directory holding an initialized almanac/ (registered on the spot).
   */
  select(cwd: string, wiki?: string): Repository {
    if (wiki !== undefined) return this.byName(wiki);
    const registered = this.deps.store.rootPaths();
    let dir = normalizeRoot(cwd);
    for (;;) {
      const known = registered.get(dir);
      if (known) return known;
      if (isInitializedRoot(dir)) return this.register(dir, {}).repository;
      const parent = dirname(dir);
      if (parent === dir) throw new ProductError("repository_not_selected", NO_REPOSITORY_MESSAGE);
      dir = parent;
    }
  }

  byName(name: string): Repository {
    const wanted = name.trim();
    if (wanted === "") throw invalid("--wiki must not be empty");
    const found = this.deps.store.findByName(wanted) ?? this.deps.store.findByName(kebab(wanted));
    if (!found) throw notFound("repository", wanted);
    return found;
  }

  register(root: string, options: { name?: string; description?: string }): Registration {
    const rootPath = normalizeRoot(root);
    const explicit = options.name !== undefined;
    const existing = this.deps.store.findById(repositoryIdFor(rootPath));
    const source = options.name ?? existing?.name ?? basename(rootPath);
    const name = kebab(source);
    if (name === "") throw invalid("could not derive a repository name; pass --name");
    const registration = this.deps.store.registerRepository({
      repositoryId: repositoryIdFor(rootPath),
      rootPath,
      name,
      explicit,
      ...(options.description !== undefined ? { description: options.description } : {}),
      now: this.deps.now(),
    });
    if (registration.renamedFrom) {
      this.deps.notice(
        `codealmanac: the name "${registration.renamedFrom}" is taken by another checkout; registered ${rootPath} as "${registration.repository.name}"`,
      );
    }
    return registration;
  }

  list(): RepositoryListing[] {
    return this.deps.store
      .listRepositories()
      .map((repository) => ({ repository, status: repositoryStatus(repository.rootPath) }));
  }

  /** Drops a registration and its derived index; past runs keep their recorded name. */
  forget(name: string): Repository {
    const repository = this.byName(name);
    const active = this.deps.activeRunCount(repository.repositoryId);
    if (active > 0) {
      throw new ProductError(
        "conflict",
        `${repository.name} has ${active} queued or running job${active === 1 ? "" : "s"}; wait for them or cancel them with \`codealmanac jobs cancel <id>\` first`,
      );
    }
    this.deps.store.forgetRepository(repository.repositoryId);
    this.deps.removeDerivedState(repository.repositoryId);
    return repository;
  }

  /**
   * Registers again the wikis whose derived state outlived their row (the state database
   * was emptied, truncated or replaced), with one notice line naming them; see
   * recovery.ts. Cheap when nothing is missing: one folder listing and one query.
   */
  recoverLostRegistrations(): Recovery {
    const recovery = recoverRegistrations({
      store: this.deps.store,
      recorded: {
        ids: () => this.deps.recorded.ids(),
        registration: (id) => this.deps.recorded.registration(id),
        remove: (id) => this.deps.removeDerivedState(id),
      },
    });
    if (recovery.restored.length > 0) {
      const { database, repos } = this.deps.locations;
      const names = recovery.restored.map(({ repository }) => `${repository.name} (${repository.rootPath})`).join(", ");
      const count = recovery.restored.length;
      this.deps.notice(
        `codealmanac: the state database ${database} did not list ${count === 1 ? "a wiki" : `${count} wikis`} that ${repos} still holds (it was emptied or replaced); registered again from ${count === 1 ? "its index" : "their indexes"}: ${names}`,
      );
    }
    return recovery;
  }

  /** Matches session directories to registered repositories (root, subfolder, worktree, symlink). */
  affiliator(): Affiliator {
    return new Affiliator(this.deps.store.listRepositories());
  }

  almanacPath(repository: Repository): string {
    return almanacPathFor(repository.rootPath);
  }
}
