import { join } from "node:path";
import { isPathInside, realpathLoose } from "../../core/fs.js";
import type { ResolveContext } from "../context.js";
import { claudeProjectsDir, codexHome } from "../transcripts/locate.js";

/**
 * Where a confined resolution (addresses from an agent through the MCP server) may look:
 * the repository, and the folders the agents keep their transcripts in (Claude's
 * projects, Codex's sessions and archived sessions, not the rest of their homes). The
 * path is judged by where it really leads, symlinks resolved as far as it exists, so a
 * link cannot reach out and a missing path is judged like an existing one.
 */
export function mayLookAt(path: string, ctx: ResolveContext, env: NodeJS.ProcessEnv): boolean {
  if (!ctx.confined) return true;
  const real = realpathLoose(path);
  const codex = codexHome(env);
  const allowed = [ctx.repositoryRoot, claudeProjectsDir(env), join(codex, "sessions"), join(codex, "archived_sessions")];
  return allowed.some((root) => isPathInside(real, realpathLoose(root)));
}
