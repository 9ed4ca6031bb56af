import type { CliContext } from "./context.js";
import { GUIDES, REPLACEMENTS, ROOT_GUIDE, type Guide } from "./guides.js";
import { renderTable } from "./render/table.js";
import { similarity } from "../core/similarity.js";

export interface SyntaxProblem {
  title: string;
  detail?: string;
  replacement?: string;
}

/** Renders the syntax-error screen on stderr. The caller exits 2. */
export function renderSyntaxScreen(ctx: CliContext, problem: SyntaxProblem): void {
  const s = ctx.err;
  const typed = [ctx.invokedAs, ...ctx.argv.map(quoteArg)].join(" ");
  const guide = guideFor(ctx.argv);
  const lines: string[] = [];
  lines.push(s.bold(s.blue("◆ codealmanac")), "");
  lines.push(s.bold(s.blue(problem.title)), "");
  lines.push(s.blue("You ran:"), s.blue(`  ${typed}`), "");
  if (problem.replacement) {
    lines.push(s.blue("Use this instead:"), `  ${problem.replacement}`, "");
  } else if (problem.detail) {
    lines.push(problem.detail.replace(/\s+/g, " ").trim(), "");
  }
  lines.push(s.bold(s.blue(guide.title)), s.dim(guide.summary), "");
  const table = renderTable(
    ["COMMAND", "WHAT IT DOES"],
    guide.rows.map(([command, what]) => [s.blue(command), what]),
    s,
  );
  ctx.writeErr(lines.join("\n") + "\n" + table);
}

function guideFor(argv: string[]): Guide {
  const words = argv.filter((a) => !a.startsWith("-"));
  for (let n = words.length; n > 0; n--) {
    const key = words.slice(0, n).join(" ");
    const guide = GUIDES[key];
    if (guide) return guide;
  }
  return ROOT_GUIDE;
}

export function replacementFor(argv: string[]): string | undefined {
  const words = argv.filter((a) => !a.startsWith("-")).slice(0, 2).join(" ");
  return REPLACEMENTS[words];
}

/** The closest name with a similarity ratio of at least 0.72. */
export function closest(input: string, names: string[]): string | undefined {
  let best: { name: string; score: number } | undefined;
  for (const name of names) {
    const score = similarity(input.toLowerCase(), name.toLowerCase());
    if (score >= 0.72 && (!best || score > best.score)) best = { name, score };
  }
  return best?.name;
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
}
