import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { statePaths } from "../../src/core/paths.js";
import { IndexService, type WikiIndex } from "../../src/index/service.js";
import { writeWiki } from "./cli.js";

export interface OpenedWiki {
  /** The repository root; the wiki is `almanac/` inside it. */
  dir: string;
  index: WikiIndex;
  close(): void;
}

/** A real wiki in a temporary repository, opened through the real IndexService with a private state root. */
export function openWiki(files: Record<string, string>, topicsYaml?: string): OpenedWiki {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-wiki-")));
  const repo = join(dir, "repo");
  writeWiki(repo, files, topicsYaml);
  const service = new IndexService({ paths: statePaths({ CODEALMANAC_HOME: join(dir, "state") }), now: () => Date.now() });
  const index = service.open({ repositoryId: "test-repo", name: "test", description: "", rootPath: repo, registeredAt: 0 });
  return {
    dir: repo,
    index,
    close: () => {
      service.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
