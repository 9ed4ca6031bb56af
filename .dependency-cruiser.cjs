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
    // Each store, and the SQL behind it, is used by its own domain and wired by app.ts;
    // every other domain gets a narrow view (e.g. runs/access.ts). Type imports count too:
    // a type import of a store is how a consumer comes to hold its write verbs.
    ...[
      ["runs", "^src/runs/(store|lock-store|schema)\\.ts$", "^src/(runs|queue)/|^src/app\\.ts$"],
      ["sync", "^src/sync/(store|schema)\\.ts$", "^src/sync/|^src/app\\.ts$"],
      ["repositories", "^src/repositories/(store|schema)\\.ts$", "^src/repositories/|^src/app\\.ts$"],
      ["index", "^src/index/(refresh|schema|scan|file|parse-file|parse-pool|parse-worker)\\.ts$", "^src/index/|^src/app\\.ts$"],
      ["sqlite", "^src/core/sqlite\\.ts$", "^src/(core|runs|sync|repositories|index|setup)/|^src/app\\.ts$"],
    ].map(([domain, store, allowed]) => ({
      name: `${domain}-store-only-in-its-domain`,
      severity: "error",
      comment: `The ${domain} store is used by its own domain (and wired by app.ts); others get a narrow interface.`,
      from: { path: "^src", pathNot: allowed },
      to: { path: store },
    })),
    // Which domains each domain may use at all, type imports included: the layering.
    ...Object.entries({
      core: [],
      wiki: ["core"],
      repositories: ["core"],
      runs: ["core"],
      harnesses: ["core"],
      privacy: ["core"],
      sources: ["core", "privacy"],
      index: ["core", "wiki", "repositories", "privacy"],
      evidence: ["core", "wiki", "index"],
      queue: ["core", "runs", "repositories"],
      config: ["core", "harnesses", "automation", "privacy"],
      automation: ["core", "config", "harnesses", "repositories", "wiki"],
      lifecycle: ["core", "runs", "queue", "harnesses", "index", "evidence", "sources", "repositories", "config", "privacy"],
      sync: ["core", "runs", "queue", "repositories", "sources", "harnesses", "privacy"],
      viewer: ["core", "wiki", "index", "evidence", "repositories", "runs", "queue"],
      mcp: ["core", "wiki", "index", "evidence", "repositories", "runs", "queue", "harnesses", "config", "setup"],
      setup: ["core", "wiki", "index", "repositories", "runs", "queue", "harnesses", "config", "automation", "mcp"],
    }).map(([domain, allowed]) => ({
      name: `${domain}-uses-only-${allowed.length > 0 ? allowed.join("-") : "itself"}`,
      severity: "error",
      comment: `src/${domain} may depend on ${allowed.length > 0 ? allowed.join(", ") : "nothing outside itself"}.`,
      from: { path: `^src/${domain}/` },
      to: { path: "^src/", pathNot: `^src/(${[domain, ...allowed].join("|")})/` },
    })),
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
