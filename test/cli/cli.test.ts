import { describe, expect, test } from "vitest";
import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { BIN, ROOT, page, writeWiki } from "../support/cli.js";
import { expectOk, expectSyntaxScreen, freshSandboxes, sharedSandbox } from "./helpers.js";

const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

const COMMANDS = [
  ["init"],
  ["ingest"],
  ["garden"],
  ["search"],
  ["show"],
  ["topics"],
  ["topics", "show"],
  ["topics", "create"],
  ["topics", "describe"],
  ["topics", "link"],
  ["topics", "unlink"],
  ["topics", "rename"],
  ["topics", "delete"],
  ["tag"],
  ["untag"],
  ["health"],
  ["validate"],
  ["reindex"],
  ["list"],
  ["forget"],
  ["jobs"],
  ["jobs", "list"],
  ["jobs", "show"],
  ["jobs", "logs"],
  ["jobs", "attach"],
  ["jobs", "cancel"],
  ["jobs", "retry"],
  ["jobs", "prune"],
];

describe("help and version", () => {
  const shared = sharedSandbox(() => null);
  const run = (args: string[]) => shared.box().run(args, { cwd: shared.box().home });

  test("--version and -V print the version on stdout", () => {
    for (const flag of ["--version", "-V"]) {
      const result = run([flag]);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`codealmanac ${VERSION}\n`);
      expect(result.stderr).toBe("");
    }
  });

  test("--help lists the public commands and hides the internal ones", () => {
    const result = expectOk(run(["--help"]));
    expect(result.stdout.startsWith("Usage: codealmanac [options] [command]\n")).toBe(true);
    for (const name of ["init", "ingest", "garden", "search", "show", "topics", "tag", "untag", "health", "validate", "reindex", "list", "forget", "jobs"]) {
      expect(result.stdout).toMatch(new RegExp(`\\n  ${name}\\b`));
    }
    expect(result.stdout).not.toContain("__run");
    expect(result.stderr).toBe("");
    expect(expectOk(run(["-h"])).stdout).toBe(result.stdout);
  });

  test.each(COMMANDS.map((words) => words.join(" ")))("`%s --help` prints usage on stdout and exits 0", (command) => {
    const path = command.split(" ");
    const result = run([...path, "--help"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.startsWith(`Usage: codealmanac ${path.join(" ")} `)).toBe(true);
    expect(result.stderr).toBe("");
  });

  test("`help <command>` works too", () => {
    const result = expectOk(run(["help", "search"]));
    expect(result.stdout.startsWith("Usage: codealmanac search [options] [query...]\n")).toBe(true);
  });

  test("search --help documents every flag", () => {
    const result = expectOk(run(["search", "--help"]));
    for (const flag of ["--topic <topic>", "--mentions <path>", "--limit <n>", "--slugs", "--json", "--wiki <name>"]) {
      expect(result.stdout).toContain(flag);
    }
  });

  test("show --help documents every view flag", () => {
    const result = expectOk(run(["show", "--help"]));
    for (const flag of ["--body", "--meta", "--lead", "--links", "--backlinks", "--files", "--topics", "--json", "--wiki <name>"]) {
      expect(result.stdout).toContain(flag);
    }
  });
});

describe("syntax errors exit 2 with the syntax screen on stderr", () => {
  const shared = sharedSandbox((box) => ({
    repo: writeWiki(join(box.dir, "repo"), { "a.md": page({ title: "A", topics: ["concepts"], sources: [], body: "A." }) }),
  }));
  const run = (args: string[]) => shared.box().run(args, { cwd: shared.fixture().repo });

  test("no command: Missing command with the root guide", () => {
    const screen = expectSyntaxScreen(run([]), "Missing command");
    expect(screen).toBe(
      [
        "◆ codealmanac",
        "",
        "Missing command",
        "",
        "You ran:",
        "  codealmanac",
        "",
        "CodeAlmanac commands",
        "A living wiki for your repository, kept by your coding agents.",
        "",
        "COMMAND                     WHAT IT DOES",
        "codealmanac init            create almanac/ and queue the first build",
        "codealmanac ingest <path>   fold files, folders or notes into the wiki",
        "codealmanac garden          improve the wiki as a whole",
        "codealmanac search <query>  find pages",
        "codealmanac show <page>     read one page",
        "codealmanac topics          browse the topic graph",
        "codealmanac validate        check the wiki",
        "codealmanac drift           pages whose cited code changed",
        "codealmanac jobs            follow background work",
        "codealmanac sync            ingest what your agent sessions learned",
        "codealmanac setup           agent instructions and scheduled sync and garden",
        "codealmanac doctor          check the installation",
        "",
      ].join("\n"),
    );
  });

  test("a misspelt command suggests the closest one", () => {
    const cases: [string, string][] = [
      ["serch", "search"],
      ["topcis", "topics"],
      ["shwo", "show"],
      ["valdate", "validate"],
    ];
    for (const [typed, meant] of cases) {
      const screen = expectSyntaxScreen(run([typed, "x"]), "Unknown command");
      expect(screen).toContain(`You ran:\n  codealmanac ${typed} x\n\nUse this instead:\n  codealmanac ${meant}\n`);
    }
  });

  test("an unknown command with nothing close shows the parser message and the root guide", () => {
    const screen = expectSyntaxScreen(run(["xyzzy"]), "Unknown command");
    expect(screen).toContain("\nunknown command 'xyzzy'\n");
    expect(screen).not.toContain("Use this instead");
    expect(screen).toContain("CodeAlmanac commands");
  });

  test("hidden commands are never suggested", () => {
    const screen = expectSyntaxScreen(run(["run-worker"]), "Unknown command");
    expect(screen).not.toContain("__run");
  });

  test("commands rejected on purpose are unknown", () => {
    for (const args of [["build"], ["capture"], ["absorb"], ["list", "--drop"], ["search", "--include-archive"], ["search", "--archived"], ["init", "--root", "x"]]) {
      const result = run(args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stdout).toBe("");
    }
  });

  test("a misspelt subcommand of a group suggests the closest one", () => {
    for (const [typed, meant] of [
      [["jobs", "lsit"], "jobs list"],
      [["jobs", "shwo", "latest"], "jobs show"],
      [["topics", "shw", "x"], "topics show"],
    ] as const) {
      const screen = expectSyntaxScreen(run([...typed]), "Unknown command");
      expect(screen).toContain(`Use this instead:\n  codealmanac ${meant}\n`);
    }
  });

  test("`topics list` points at `codealmanac topics`", () => {
    const screen = expectSyntaxScreen(run(["topics", "list"]), "Unknown command");
    expect(screen).toContain("Use this instead:\n  codealmanac topics\n");
  });

  test("an unknown option names it, suggests a close flag, and shows the command's guide", () => {
    const screen = expectSyntaxScreen(run(["search", "nebula", "--jsn"]), "Unknown option");
    expect(screen).toContain("\nunknown option '--jsn' (did you mean --json?)\n");
    expect(screen).toContain("Search options\nRanked full-text search over page sections.\n");
    expect(screen).toContain("codealmanac search --mentions <path>");
  });

  test("an unknown option on a topic subcommand", () => {
    const screen = expectSyntaxScreen(run(["topics", "show", "concepts", "--decendants"]), "Unknown option");
    expect(screen).toContain("did you mean --descendants?");
    expect(screen).toContain("Topic commands");
  });

  test("a missing argument", () => {
    const screen = expectSyntaxScreen(run(["topics", "link", "a"]), "Missing argument");
    expect(screen).toContain("missing required argument 'parent'");
  });

  test("a missing option value", () => {
    const screen = expectSyntaxScreen(run(["search", "--mentions"]), "Missing value");
    expect(screen).toContain("--mentions");
  });

  test("a value of the wrong type: --limit abc", () => {
    const screen = expectSyntaxScreen(run(["search", "x", "--limit", "abc"]), "Invalid value");
    expect(screen).toContain(`argument 'abc' is invalid. expected an integer, got "abc"`);
  });

  test("an invalid choice: --using x, on every lifecycle command, before anything is queued", () => {
    for (const args of [["init", "--using", "x"], ["ingest", "a.md", "--using", "x"], ["garden", "--using", "gpt"]]) {
      const screen = expectSyntaxScreen(run(args), "Invalid value");
      expect(screen).toContain("Allowed choices are claude, codex.");
    }
    expect(expectOk(shared.box().run(["jobs", "--json"], { cwd: shared.fixture().repo })).json()).toEqual([]);
  });

  test("an extra argument to a command that takes none", () => {
    const screen = expectSyntaxScreen(run(["health", "extra"]), "Unexpected argument");
    expect(screen).toContain("Health");
  });

  test("a syntax error under --json is still the screen (exit 2), never JSON on stdout", () => {
    const result = run(["search", "--limit", "abc", "--json"]);
    expectSyntaxScreen(result, "Invalid value");
  });

  test("the screen echoes the `ca` alias when invoked as ca", () => {
    const alias = join(shared.box().dir, "ca");
    symlinkSync(BIN, alias);
    const result = spawnSync(process.execPath, [alias, "serch"], {
      cwd: shared.fixture().repo,
      env: shared.box().env,
      encoding: "utf8",
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("You ran:\n  ca serch\n");
    expect(result.stderr).toContain("Use this instead:\n  codealmanac search\n");
  });
});

describe("internal errors", () => {
  const fresh = freshSandboxes();

  test("an unusable state directory fails with one line, or one JSON error", () => {
    const box = fresh();
    const repo = writeWiki(join(box.dir, "repo"), {});
    const blocker = join(box.dir, "not-a-folder");
    writeFileSync(blocker, "");
    const env = { CODEALMANAC_HOME: blocker };
    const plain = box.run(["search", "x"], { cwd: repo, env });
    expect(plain.code).toBe(1);
    expect(plain.stdout).toBe("");
    expect(plain.stderr).toMatch(/^codealmanac: internal error: .+\n$/);
    expect(plain.stderr.trim().split("\n")).toHaveLength(1);
    const json = box.run(["search", "x", "--json"], { cwd: repo, env });
    expect(json.code).toBe(1);
    expect(json.stdout).toBe("");
    const error = JSON.parse(json.stderr) as { error: { code: string; message: string } };
    expect(error.error.code).toBe("internal_error");
    expect(error.error.message).toMatch(/^internal error: /);
  });

  test("a damaged state database fails with one line naming the file and the fix, not an internal error", () => {
    const box = fresh();
    const repo = writeWiki(join(box.dir, "repo"), {});
    expectOk(box.run(["search"], { cwd: repo }));
    const file = join(box.state, "codealmanac.db");
    writeFileSync(file, "garbage ".repeat(200));
    const result = box.run(["search"], { cwd: repo });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(new RegExp(`^codealmanac: the state database ${file} is damaged \\(file is not a database\\); move it aside \\(mv ${file} ${file}\\.damaged\\) .+\n$`));
    expect(existsSync(join(box.state, "logs", "errors.log"))).toBe(false);
  });
});
