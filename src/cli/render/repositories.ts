import type { CliContext } from "../context.js";
import type { Repository } from "../../repositories/model.js";
import type { RepositoryListing } from "../../repositories/service.js";
import { EM_DASH, isoTime } from "./format.js";
import { join } from "node:path";

export function repositoryJson(r: Repository) {
  return {
    repository_id: r.repositoryId,
    name: r.name,
    description: r.description,
    root_path: r.rootPath,
    almanac_root: "almanac",
    almanac_path: join(r.rootPath, "almanac"),
    registered_at: isoTime(r.registeredAt),
  };
}

export function renderRepositories(ctx: CliContext, listings: RepositoryListing[]): void {
  const s = ctx.out;
  if (listings.length === 0) {
    ctx.write(s.dim("no wikis registered. run `codealmanac init` in a repo to create one.") + "\n");
    return;
  }
  const width = Math.min(30, Math.max(...listings.map((l) => l.repository.name.length)));
  const lines: string[] = [];
  for (const { repository, status } of listings) {
    const pad = " ".repeat(Math.max(0, width - repository.name.length));
    const note = status === "available" ? "" : `  ${s.red(status === "missing_repo" ? "(missing)" : "(no almanac/)")}`;
    lines.push(`${s.bold(s.blue(repository.name))}${pad}  ${repository.description || EM_DASH}${note}`);
    lines.push(`${" ".repeat(width)}  ${s.dim(repository.rootPath)}`);
  }
  ctx.write(lines.join("\n") + "\n");
}
