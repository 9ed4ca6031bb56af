import { copyFileSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { StorageError } from "../../src/core/errors.js";
import { indexPath, statePaths } from "../../src/core/paths.js";
import type { Db } from "../../src/core/sqlite.js";
import { IndexFile } from "../../src/index/file.js";
import { IndexService, WikiIndex } from "../../src/index/service.js";
import type { Repository } from "../../src/repositories/model.js";
import { btreePages, garblePage } from "../support/damage.js";
import { sizableWiki } from "../support/damage.js";

/**
 * The guard of WikiIndex in-process, with the index file as a port: a file whose every
 * build comes out damaged again shows what the second failure looks like, and counting
 * builds shows that calls meeting the same damage share one.
 */
let dir: string;
let repository: Repository;
let file: string;
let healthy: string;
let interior: number;

beforeEach(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-guard-")));
  const root = sizableWiki(join(dir, "repo"), 120);
  repository = { repositoryId: "repo_guard", name: "guard", description: "", rootPath: root, registeredAt: 0 };
  const paths = statePaths({ CODEALMANAC_HOME: join(dir, "state") });
  const service = new IndexService({ paths, now: Date.now });
  await service.open(repository).refresh();
  service.close();
  file = indexPath(paths, repository.repositoryId);
  healthy = join(dir, "healthy.db");
  copyFileSync(file, healthy);
  interior = btreePages(healthy, "pages", "internal")[0]!;
  garblePage(file, interior);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An index file whose builds are counted, and garbled on the way out when `garble` is set. */
class CountingFile extends IndexFile {
  builds = 0;
  constructor(
    path: string,
    private readonly garble: boolean,
  ) {
    super(path);
  }

  override async build<T>(fill: (db: Db) => Promise<T>): Promise<T> {
    this.builds++;
    const result = await super.build(fill);
    if (this.garble) for (const pageno of btreePages(this.path, "pages", "internal")) garblePage(this.path, pageno);
    return result;
  }
}

function handle(indexFile: IndexFile): WikiIndex {
  const almanacPath = join(repository.rootPath, "almanac");
  return new WikiIndex({ file: indexFile, repository, almanacPath, wikiRoot: realpathSync(almanacPath), now: Date.now, registration: () => null });
}

describe("WikiIndex's guard", () => {
  test("an index still damaged after its rebuild is one line naming the file and what to check", async () => {
    const indexFile = new CountingFile(file, true);
    const index = handle(indexFile);
    try {
      const failure = await index.search({ query: "zebra17", topics: [], limit: 5 }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(StorageError);
      expect((failure as StorageError).message).toBe(
        `the wiki's index ${file} is damaged (database disk image is malformed); it was built again from almanac/ and is still damaged: check the disk that holds it, then run \`ca reindex\``,
      );
      // Rebuilt once, not in a loop.
      expect(indexFile.builds).toBe(1);
    } finally {
      index.close();
    }
  });

  test("calls that meet the same damage together share one build, and all answer", async () => {
    const indexFile = new CountingFile(file, false);
    const index = handle(indexFile);
    try {
      const answers = await Promise.all([
        index.search({ query: "zebra17", topics: [], limit: 5 }),
        index.read((db) => db.prepare("SELECT COUNT(*) FROM pages").pluck().get()),
        index.show("notes/note-017"),
      ]);
      expect(answers[0].hits.map((hit) => hit.slug)).toEqual(["notes/note-017"]);
      expect(answers[1]).toBe(121);
      expect(answers[2].slug).toBe("notes/note-017");
      expect(indexFile.builds).toBe(1);
    } finally {
      index.close();
    }
  });

  test("a healthy index is never rebuilt by a read", async () => {
    copyFileSync(healthy, file);
    const indexFile = new CountingFile(file, false);
    const index = handle(indexFile);
    try {
      expect((await index.search({ query: "zebra17", topics: [], limit: 5 })).hits).toHaveLength(1);
      expect(indexFile.builds).toBe(0);
    } finally {
      index.close();
    }
  });
});
