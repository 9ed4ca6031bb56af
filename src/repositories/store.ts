import type { Db } from "../core/sqlite.js";
import { conflict } from "../core/errors.js";
import type { Repository } from "./model.js";

interface Row {
  repository_id: string;
  name: string;
  description: string;
  root_path: string;
  registered_at: number;
}

const toRepository = (row: Row): Repository => ({
  repositoryId: row.repository_id,
  name: row.name,
  description: row.description,
  rootPath: row.root_path,
  registeredAt: row.registered_at,
});

export interface RegistrationRequest {
  repositoryId: string;
  rootPath: string;
  /** The name to use; when `explicit` is false a clash is resolved with a numeric suffix. */
  name: string;
  explicit: boolean;
  description?: string;
  now: number;
}

export interface Registration {
  repository: Repository;
  created: boolean;
  /** Set when the wanted name was taken and a suffixed name was chosen instead. */
  renamedFrom?: string;
}

/** Owns the `repositories` table. */
export class RepositoryStore {
  constructor(private readonly db: Db) {}

  listRepositories(): Repository[] {
    const rows = this.db
      .prepare("SELECT * FROM repositories ORDER BY name COLLATE NOCASE, root_path")
      .all() as Row[];
    return rows.map(toRepository);
  }

  findById(repositoryId: string): Repository | undefined {
    const row = this.db.prepare("SELECT * FROM repositories WHERE repository_id = ?").get(repositoryId) as
      | Row
      | undefined;
    return row && toRepository(row);
  }

  findByName(name: string): Repository | undefined {
    const row = this.db.prepare("SELECT * FROM repositories WHERE name = ? COLLATE NOCASE").get(name) as
      | Row
      | undefined;
    return row && toRepository(row);
  }

  rootPaths(): Map<string, Repository> {
    return new Map(this.listRepositories().map((r) => [r.rootPath, r]));
  }

  /** Insert or update one repository; a name clash never surfaces as a SQLite error. */
  registerRepository(request: RegistrationRequest): Registration {
    return this.db
      .transaction((): Registration => {
        const existing = this.findById(request.repositoryId);
        if (existing) {
          const description = request.description?.trim() || existing.description;
          let name = existing.name;
          if (request.explicit && request.name !== existing.name) {
            this.assertNameFree(request.name, request.repositoryId);
            name = request.name;
          }
          this.db
            .prepare("UPDATE repositories SET name = ?, description = ?, root_path = ? WHERE repository_id = ?")
            .run(name, description, request.rootPath, request.repositoryId);
          return { repository: { ...existing, name, description, rootPath: request.rootPath }, created: false };
        }
        let name = request.name;
        let renamedFrom: string | undefined;
        if (request.explicit) {
          this.assertNameFree(name, request.repositoryId);
        } else if (this.nameTaken(name, request.repositoryId)) {
          renamedFrom = name;
          name = this.nextFreeName(name, request.repositoryId);
        }
        const repository: Repository = {
          repositoryId: request.repositoryId,
          name,
          description: request.description?.trim() ?? "",
          rootPath: request.rootPath,
          registeredAt: request.now,
        };
        this.db
          .prepare(
            "INSERT INTO repositories (repository_id, name, description, root_path, registered_at) VALUES (?, ?, ?, ?, ?)",
          )
          .run(repository.repositoryId, repository.name, repository.description, repository.rootPath, request.now);
        return renamedFrom ? { repository, created: true, renamedFrom } : { repository, created: true };
      })
      .immediate();
  }

  /** The ids of every registered repository. */
  registeredIds(): Set<string> {
    return new Set(this.db.prepare("SELECT repository_id FROM repositories").pluck().all() as string[]);
  }

  /** This state database's own id, made when it was created (see schema.ts). */
  ledgerId(): string {
    return this.db.prepare("SELECT ledger_id FROM ledger LIMIT 1").pluck().get() as string;
  }

  /**
   * Registers again, in one transaction, repositories this registry lost but their
   * derived state recorded; an id registered in the meantime is left as it is. Names
   * that are taken get the next free suffix, as automatic registrations do.
   */
  restoreRegistrations(requests: readonly RegistrationRequest[]): Registration[] {
    return this.db
      .transaction((): Registration[] =>
        requests.filter((request) => !this.findById(request.repositoryId)).map((request) => this.registerRepository(request)),
      )
      .immediate();
  }

  forgetRepository(repositoryId: string): boolean {
    return this.db.prepare("DELETE FROM repositories WHERE repository_id = ?").run(repositoryId).changes > 0;
  }

  private nameTaken(name: string, exceptId: string): boolean {
    const holder = this.findByName(name);
    return holder !== undefined && holder.repositoryId !== exceptId;
  }

  private assertNameFree(name: string, exceptId: string): void {
    const holder = this.findByName(name);
    if (holder && holder.repositoryId !== exceptId) {
      throw conflict(
        `repository name "${name}" is already used by ${holder.rootPath}; choose another --name, or run \`codealmanac forget ${holder.name}\` if that checkout is gone`,
      );
    }
  }

  private nextFreeName(base: string, exceptId: string): string {
    for (let n = 2; ; n++) {
      const candidate = `${base}-${n}`;
      if (!this.nameTaken(candidate, exceptId)) return candidate;
    }
  }
}
