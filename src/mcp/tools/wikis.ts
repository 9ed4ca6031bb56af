import * as z from "zod/mini";
import { count } from "./common.js";
import type { ToolContext } from "./context.js";
import { defineTool } from "./tool.js";

const OUTPUT = z.object({
  selected: z.nullable(z.string()).check(z.describe("the wiki tools read when no wiki argument is given")),
  wikis: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      root_path: z.string(),
      status: z.enum(["available", "missing_repo", "missing_almanac"]),
      selected: z.boolean(),
    }),
  ),
});
type WikisOutput = z.output<typeof OUTPUT>;

export const listWikisTool = (context: ToolContext) =>
  defineTool({
    name: "list_wikis",
    title: "List wikis",
    description:
      "List the CodeAlmanac wikis this server can read (every wiki registered on this machine, unless the server was started for one): name, repository folder, and whether the wiki is still there. The one marked selected is the wiki the other tools read by default; pass another's name as their wiki argument to read it.",
    input: z.strictObject({}),
    output: OUTPUT,
    run: async () => {
      // First: selecting from the server's directory may register its wiki, which the list then shows.
      const selected = context.wikis.defaultName();
      const data: WikisOutput = {
        selected,
        wikis: context.wikis.visible().map(({ repository, status }) => ({
          name: repository.name,
          description: repository.description,
          root_path: repository.rootPath,
          status,
          selected: repository.name === selected,
        })),
      };
      return { data, text: wikisText(data) };
    },
  });

function wikisText(data: WikisOutput): string {
  if (data.wikis.length === 0) return "No wikis are registered yet. Run `ca init` in a repository to create one.";
  const lines = [`${count(data.wikis.length, "wiki")} registered${data.selected ? `; tools read ${data.selected} by default` : ""}:`];
  for (const w of data.wikis) {
    const state = w.status === "available" ? "" : ` (${w.status === "missing_repo" ? "repository missing" : "almanac/ missing"})`;
    lines.push(`- ${w.name}${w.selected ? " [selected]" : ""}: ${w.root_path}${state}${w.description ? ` — ${w.description}` : ""}`);
  }
  return lines.join("\n");
}
