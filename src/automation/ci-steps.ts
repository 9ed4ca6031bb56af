/**
 * What every CI provider's garden runs, as shell lines: the install line pinned to this
 * CodeAlmanac, the garden itself, and the commit of its changes on the proposal's branch.
 * The providers differ only in how they push that branch and open the request.
 */
import { MIN_NODE_MAJOR, VERSION } from "../core/version.js";
import { HARNESSES, type HarnessKind } from "../harnesses/catalog.js";

/** The branch every garden proposes its changes on; each run replaces the last one's. */
export const GARDEN_BRANCH = "codealmanac/garden";
export const GARDEN_COMMIT_MESSAGE = "almanac: garden the wiki";
export const GARDEN_TITLE = "CodeAlmanac: garden the wiki";
export const GARDEN_DESCRIPTION = "Changes proposed by the scheduled CodeAlmanac garden.";

/** The Node.js major a runner needs for CodeAlmanac and the agent CLI both. */
export function ciNodeMajor(harness: HarnessKind | null): number {
  return Math.max(MIN_NODE_MAJOR, harness === null ? 0 : HARNESSES[harness].nodeMajor);
}

/**
 * `npm install -g` of the CodeAlmanac that wrote the file, and the agent's CLI when one is
 * needed. Their install scripts (better-sqlite3's native module, the agent's own set-up)
 * are approved by name: npm 11.16 and later ask for that, and a later npm skips the others.
 */
export function installCommand(harness: HarnessKind | null): string {
  const packages = harness === null ? [] : [harnessPackage(harness)];
  const approved = ["better-sqlite3", ...packages].join(",");
  return ["npm install -g", `--allow-scripts=${approved}`, `codealmanac@${VERSION}`, ...packages].join(" ");
}

/**
 * The garden, with the state root in `$CODEALMANAC_HOME` (a fresh folder of the runner's):
 * the stale pages' garden when drift finds some, else the whole wiki's, its changes left
 * in the working tree for the proposal.
 */
export function gardenScript(harness: HarnessKind): string[] {
  return [
    'mkdir -p "$CODEALMANAC_HOME"',
    "# Leave the changes uncommitted: the proposal commits them on its own branch.",
    `printf 'auto_commit = false\\n' > "$CODEALMANAC_HOME/config.toml"`,
    "# Pages whose cited code changed get a garden of their own, else the wiki as a whole",
    "# (a drift that cannot be computed counts as none).",
    "drift=$(ca drift --json || true)",
    `if grep -q '"status": *"stale"' <<< "$drift"; then`,
    `  ca garden --stale --wait --json --using ${harness}`,
    "else",
    `  ca garden --wait --json --using ${harness}`,
    "fi",
  ];
}

/**
 * Stops the job quietly when the garden changed nothing under almanac/; else commits those
 * changes alone on the garden branch, as `name` <`email`> (shell words, quoted by the caller).
 */
export function commitScript(name: string, email: string): string[] {
  return [
    'if [ -z "$(git status --porcelain -- almanac)" ]; then',
    '  echo "The garden changed nothing under almanac/: nothing to propose."',
    "  exit 0",
    "fi",
    `git switch -C ${GARDEN_BRANCH}`,
    "git add -A -- almanac",
    `git -c user.name=${name} -c user.email=${email} commit -q -m "${GARDEN_COMMIT_MESSAGE}"`,
  ];
}

/** The npm package of the agent CLI, from the harness catalog's install line. */
export function harnessPackage(kind: HarnessKind): string {
  const found = /npm install -g (@?[a-z0-9][\w./-]*)/.exec(HARNESSES[kind].install)?.[1];
  if (!found) throw new Error(`the harness catalog names no npm package for ${kind}`);
  return found;
}

/** The API key variable the agent CLI reads, from the harness catalog's login line. */
export function harnessSecret(kind: HarnessKind): string {
  const found = /\bset ([A-Z][A-Z0-9_]*)/.exec(HARNESSES[kind].login)?.[1];
  if (!found) throw new Error(`the harness catalog names no API key variable for ${kind}`);
  return found;
}

/** Lines of a YAML block scalar or sequence, indented by `spaces`. */
export function indent(lines: string[], spaces: number): string[] {
  const pad = " ".repeat(spaces);
  return lines.map((line) => (line === "" ? "" : pad + line));
}
