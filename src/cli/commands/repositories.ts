import type { App } from "../../app.js";
import type { CliContext } from "../context.js";
import type { Opts } from "../context.js";
import { renderRepositories, repositoryJson } from "../render/repositories.js";

export async function list(ctx: CliContext, app: App, _args: unknown[], opts: Opts): Promise<void> {
  const listings = app.repositories.list();
  if (opts.json) return ctx.json(listings.map((l) => ({ repository: repositoryJson(l.repository), status: l.status })));
  renderRepositories(ctx, listings);
}

export async function forget(ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> {
  const repository = app.repositories.forget(args[0] as string);
  if (opts.json) return ctx.json({ forgotten: repositoryJson(repository) });
  ctx.write(`forgot ${repository.name} (${repository.rootPath}); its past jobs stay listed\n`);
}
