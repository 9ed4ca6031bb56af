/** Short command guides shown under syntax errors: example command and what it does. */
export interface Guide {
  title: string;
  summary: string;
  rows: [string, string][];
}

export const ROOT_GUIDE: Guide = {
  title: "CodeAlmanac commands",
  summary: "A living wiki for your repository, kept by your coding agents.",
  rows: [
    ["codealmanac init", "create almanac/ and queue the first build"],
    ["codealmanac ingest <path>", "fold files, folders or notes into the wiki"],
    ["codealmanac garden", "improve the wiki as a whole"],
    ["codealmanac search <query>", "find pages"],
    ["codealmanac show <page>", "read one page"],
    ["codealmanac topics", "browse the topic graph"],
    ["codealmanac validate", "check the wiki"],
    ["codealmanac drift", "pages whose cited code changed"],
    ["codealmanac jobs", "follow background work"],
    ["codealmanac sync", "ingest what your agent sessions learned"],
    ["codealmanac setup", "agent instructions and scheduled sync and garden"],
    ["codealmanac doctor", "check the installation"],
  ],
};

export const GUIDES: Record<string, Guide> = {
  search: {
    title: "Search options",
    summary: "Ranked full-text search over page sections.",
    rows: [
      ["codealmanac search <query>", "text search (titles and headings rank first)"],
      ["codealmanac search --topic <topic>", "only pages with a topic (or a narrower one)"],
      ["codealmanac search --mentions <path>", "pages citing a file or folder"],
      ["codealmanac search <query> --limit 10", "at most 10 pages"],
      ["codealmanac search <query> --slugs", "slugs only"],
      ["codealmanac search <query> --json", "machine-readable results"],
    ],
  },
  show: {
    title: "Show options",
    summary: "Read one page; pick at most one view.",
    rows: [
      ["codealmanac show <page>", "metadata and body"],
      ["codealmanac show <page> --body", "body only"],
      ["codealmanac show <page> --meta", "metadata only"],
      ["codealmanac show <page> --lead", "the lead paragraph"],
      ["codealmanac show <page> --links", "outgoing page links"],
      ["codealmanac show <page> --backlinks", "pages linking here"],
      ["codealmanac show <page> --files", "cited files"],
      ["codealmanac show <page> --json", "everything as JSON"],
    ],
  },
  topics: {
    title: "Topic commands",
    summary: "Topics form a DAG declared in almanac/topics.yaml.",
    rows: [
      ["codealmanac topics", "list topics with page counts"],
      ["codealmanac topics show <topic>", "parents, children and pages"],
      ["codealmanac topics create <name> --parent <p>", "declare a topic"],
      ["codealmanac topics describe <topic> <text>", "set a description"],
      ["codealmanac topics link <child> <parent>", "add a parent edge"],
      ["codealmanac topics unlink <child> <parent>", "remove a parent edge"],
      ["codealmanac topics rename <old> <new>", "rename everywhere"],
      ["codealmanac topics delete <topic>", "remove everywhere"],
    ],
  },
  tag: {
    title: "Tagging",
    summary: "Add topics to a page's front matter.",
    rows: [["codealmanac tag <page> <topic>...", "add topics"], ["codealmanac untag <page> <topic>...", "remove topics"]],
  },
  untag: {
    title: "Tagging",
    summary: "Remove topics from a page's front matter.",
    rows: [["codealmanac untag <page> <topic>...", "remove topics"], ["codealmanac tag <page> <topic>...", "add topics"]],
  },
  list: { title: "Registered wikis", summary: "Every repository CodeAlmanac knows.", rows: [["codealmanac list", "names and roots"], ["codealmanac list --json", "with status"], ["codealmanac forget <name>", "drop a moved or deleted repository"]] },
  forget: { title: "Registered wikis", summary: "Drop a repository that moved or was deleted.", rows: [["codealmanac forget <name>", "forget it and its index"], ["codealmanac list", "see what is registered"]] },
  health: { title: "Health", summary: "A report of wiki findings; always exits 0.", rows: [["codealmanac health", "grouped findings"], ["codealmanac health --json", "as JSON"]] },
  validate: { title: "Validate", summary: "Errors fail (exit 1); warnings fail only with --strict.", rows: [["codealmanac validate", "check the wiki"], ["codealmanac validate --strict", "warnings fail too"], ["codealmanac validate --json", "as JSON"]] },
  drift: {
    title: "Drift",
    summary: "Pages whose cited code changed since they were verified.",
    rows: [
      ["codealmanac drift", "stale and moved pages, with reasons"],
      ["codealmanac drift --all --json", "every page, as JSON"],
      ["codealmanac drift --base main --fail-on stale", "gate a pull request"],
      ["codealmanac drift --fix", "re-anchor moved evidence"],
    ],
  },
  reindex: { title: "Reindex", summary: "Rebuild the derived index from almanac/.", rows: [["codealmanac reindex", "full rebuild"], ["codealmanac reindex --json", "counts as JSON"]] },
  init: { title: "Init", summary: "Create almanac/ here and queue the first build.", rows: [["codealmanac init", "in the current folder"], ["codealmanac init <path> --name <name>", "somewhere else, named"], ["codealmanac init --using claude", "choose the agent"]] },
  ingest: {
    title: "Ingest",
    summary: "Queue an agent run that folds material into the wiki.",
    rows: [
      ["codealmanac ingest <path>...", "files or folders"],
      ["codealmanac ingest git:range:main..HEAD", "commits with their diff (also git:commit:<rev>, git:diff)"],
      ["codealmanac ingest github:pr:42", "a pull request or issue, through gh"],
      ["codealmanac ingest <url>", "a web page"],
      ["codealmanac ingest transcript:<id|path>", "a Claude Code or Codex session"],
      ["codealmanac ingest <input> --wait", "follow it; exit with its outcome"],
      ["codealmanac ingest <input> --json", "receipt as JSON"],
    ],
  },
  garden: {
    title: "Garden",
    summary: "Queue an agent run that improves the whole wiki.",
    rows: [
      ["codealmanac garden", "queue a garden run"],
      ["codealmanac garden --stale", "only the pages whose cited code changed, each with its diff"],
      ["codealmanac garden --guidance <text>", "steer the agent"],
      ["codealmanac garden --wait", "follow it; exit with its outcome"],
    ],
  },
  jobs: {
    title: "Jobs",
    summary: "Background runs of init, ingest and garden.",
    rows: [
      ["codealmanac jobs", "the 100 newest jobs"],
      ["codealmanac jobs show <id>", "one job"],
      ["codealmanac jobs logs <id>", "its log"],
      ["codealmanac jobs attach <id>", "follow it live"],
      ["codealmanac jobs cancel <id>", "stop it"],
      ["codealmanac jobs retry <id>", "queue it again"],
      ["codealmanac jobs prune --older-than 30d", "delete old finished jobs"],
    ],
  },
  sync: {
    title: "Sync",
    summary: "Queue ingest runs for new activity in your Claude Code and Codex sessions.",
    rows: [
      ["codealmanac sync status", "what the next sync would take (changes nothing)"],
      ["codealmanac sync", "queue one ingest run per repository"],
      ["codealmanac sync --from codex", "only Codex sessions (claude, codex)"],
      ["codealmanac sync --wiki <name>", "only one wiki's sessions"],
      ["codealmanac sync --since 2d", "also take older sessions never synced"],
      ["codealmanac sync --json", "machine-readable summary"],
    ],
  },
  config: {
    title: "Config",
    summary: "Settings in config.toml under the state directory.",
    rows: [
      ["codealmanac config list", "every key and its value"],
      ["codealmanac config get <key>", "one value"],
      ["codealmanac config set <key> <value>", "change a value (schedules apply at once)"],
      ["codealmanac config unset <key>", "back to the default"],
      ["codealmanac config apply", "check a hand-edited file and apply its schedules"],
    ],
  },
  automation: {
    title: "Automation",
    summary: "Scheduled sync and garden (systemd, cron or launchd), or a garden in CI.",
    rows: [
      ["codealmanac automation status", "what is scheduled, and how it last went"],
      ["codealmanac config set automation.sync.every 2h", "change a schedule"],
      ["codealmanac config set automation.garden.enabled false", "turn one off"],
      ["codealmanac automation ci --provider github", "a GitHub Actions workflow for a scheduled garden"],
      ["codealmanac automation ci --provider github --workflow drift", "one that lists the pages a pull request leaves stale"],
      ["codealmanac automation ci --provider gitlab", "a GitLab CI job for a scheduled garden, as a merge request"],
    ],
  },
};

/** Typed aliases that have a better spelling. */
export const REPLACEMENTS: Record<string, string> = {
  "topics list": "codealmanac topics",
};
