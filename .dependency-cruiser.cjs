/**
 * Architecture rules (`npm run lint`). They keep the layering honest: stores own
 * persistence, the CLI stays thin, adapters to the outside world are wired only by
 * the composition root (src/app.ts).
 */
const ADAPTERS = "^src/(queue/process-adapter\\.ts|harnesses/(agent-process|claude/adapter|codex/adapter)\\.ts|core/processes/|core/exec\\.ts|viewer/open-browser\\.ts)";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Modules must not depend on each other in a cycle.",
      from: { path: "^src" },
      to: { circular: true, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "sqlite-only-in-persistence",
      severity: "error",
      comment: "Only core/sqlite.ts loads better-sqlite3; stores receive a Db and everyone else calls named store verbs.",
      from: { path: "^src", pathNot: "^src/core/sqlite\\.ts$" },
      to: { path: "better-sqlite3", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "stores-only-in-their-domain",
      severity: "error",
      comment: "A store (and the SQL behind it) is used by its own domain's services and by app.ts, never by the CLI.",
      from: { path: "^src/cli" },
      to: {
        path: "^src/(runs/(store|lock-store|schema)|repositories/(store|schema)|index/(refresh|schema|scan)|core/sqlite)\\.ts$",
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "adapters-only-in-app",
      severity: "error",
      comment: "Adapters (agent CLIs, OS processes) are wired in by src/app.ts only; the harness registry loads agent adapters lazily.",
      from: { path: "^src", pathNot: [ADAPTERS, "^src/app\\.ts$", "^src/harnesses/registry\\.ts$"] },
      to: { path: ADAPTERS, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "child-process-only-in-adapters",
      severity: "error",
      comment: "Spawning processes is an adapter's job (the queue's test hooks are a documented seam).",
      from: { path: "^src", pathNot: [ADAPTERS, "^src/queue/hooks\\.ts$"] },
      to: { path: "^(node:)?child_process$" },
    },
    {
      name: "toml-only-in-config",
      severity: "error",
      from: { path: "^src", pathNot: "^src/config/" },
      to: { path: "smol-toml" },
    },
    {
      name: "color-only-in-cli-render",
      severity: "error",
      from: { path: "^src", pathNot: "^src/cli/render/" },
      to: { path: "picocolors" },
    },
    {
      name: "markdown-and-yaml-only-in-wiki",
      severity: "error",
      comment: "Parsing libraries stay behind the wiki format library (and off the read fast path).",
      from: { path: "^src", pathNot: "^src/wiki/" },
      to: { path: "^(markdown-it|yaml)$|node_modules/(markdown-it|yaml)/" },
    },
    {
      name: "index-views-are-read-only",
      severity: "error",
      comment: "Read views of the index never import the code that writes it.",
      from: { path: "^src/index/views/" },
      to: { path: "^src/index/(refresh|organize|parse-file|schema)\\.ts$" },
    },
    {
      name: "core-depends-on-nothing",
      severity: "error",
      from: { path: "^src/core/" },
      to: { path: "^src/(?!core/)" },
    },
    {
      name: "wiki-is-a-leaf",
      severity: "error",
      comment: "The wiki format library knows nothing of indexes, runs or the CLI.",
      from: { path: "^src/wiki/" },
      to: { path: "^src/(index|runs|queue|lifecycle|repositories|cli|harnesses|config|app)" },
    },
    {
      name: "ledger-below-queue",
      severity: "error",
      from: { path: "^src/runs/" },
      to: { path: "^src/(queue|lifecycle|cli|harnesses|index|app)" },
    },
    {
      name: "nothing-imports-the-cli",
      severity: "error",
      from: { path: "^src/(?!cli/|bin\\.ts)" },
      to: { path: "^src/cli/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
    exclude: { path: "^(dist|test|bench|scripts)/" },
  },
};
