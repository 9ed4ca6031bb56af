import type { App } from "../../app.js";
import type { CliContext } from "../context.js";
import type { JsonOption, RegisterCommands } from "../kit.js";
import { renderRepositories, repositoryJson } from "../render/repositories.js";

export const registerRepositoriesCommands: RegisterCommands = (program, { act, json }) => {
  act(program.command("list").description("list registered wikis").addOption(json()), list);
  act(
    program.command("forget").description("drop a registered wiki (moved or deleted) and its derived index").argument("<name>").addOption(json()),
    forget,
  );
};

export async function list(ctx: CliContext, app: App, _args: [], opts: JsonOption): Promise<void> {
  const listings = app.repositories.list();
  if (opts.json) return ctx.json(listings.map((l) => ({ repository: repositoryJson(l.repository), status: l.status })));
  renderRepositories(ctx, listings);
}

export async function forget(ctx: CliContext, app: App, [name]: [string], opts: JsonOption): Promise<void> {
  const repository = app.repositories.forget(name);
  if (opts.json) return ctx.json({ forgotten: repositoryJson(repository) });
  ctx.write(`forgot ${repository.name} (${repository.rootPath}); its past jobs stay listed\n`);
}
