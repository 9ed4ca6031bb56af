/**
 * `ca mcp install|uninstall --client codex`: the `[mcp_servers.codealmanac]` table in
 * `$CODEX_HOME/config.toml`, edited line by line. Install then uninstall gives back the
 * file byte for byte; a second install changes nothing; --print writes nothing; a form
 * the editor does not understand is refused with the file untouched; and the real Codex
 * CLI reads what we wrote.
 */
import { afterEach, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCommand } from "../../src/core/exec.js";
import type { RegistrationReport } from "../../src/mcp/install/model.js";
import { registerServer } from "../../src/mcp/install/service.js";
import { sandbox, type Sandbox } from "../support/cli.js";
import { REAL_BIN, probeCli } from "../real-agents/support.js";
import { SERVER } from "./install-support.js";

const TABLE = [`[mcp_servers.codealmanac]`, `command = ${JSON.stringify(SERVER.command)}`, `args = [${SERVER.args.map((arg) => JSON.stringify(arg)).join(", ")}]`];
const BLOCK = TABLE.join("\n");

const OTHERS = [
  "# Codex settings",
  'model = "gpt-5.5"  # the default',
  'approval_policy = "on-request"',
  "",
  "[profiles.fast]",
  'model = "gpt-5.4-mini"',
  "",
  "# my other servers",
  "[mcp_servers.docs]",
  'command = "npx"',
  'args = ["-y", "docs-mcp"]',
  "",
  "[mcp_servers.docs.env]",
  'TOKEN = "x"',
].join("\n");

/** config.toml as people leave it: every variant of line endings and final newlines. */
const ROUND_TRIPS: Record<string, string | null> = {
  "no file": null,
  "an empty file": "",
  "comments, other tables and another server": `${OTHERS}\n`,
  "no final newline": OTHERS,
  "CRLF line endings": `${OTHERS.replace(/\n/g, "\r\n")}\r\n`,
  "CRLF and no final newline": OTHERS.replace(/\n/g, "\r\n"),
  "blank lines at the end": 'model = "o3"\n\n\n',
  "only a comment, no final newline": "# nothing here yet",
  "an array of tables last": '[features]\nweb_search = true\n\n[[hooks]]\nname = "a"\n',
  "an empty [mcp_servers] table": "[mcp_servers]\n",
};

let dir: string;
let box: Sandbox | undefined;

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  box?.cleanup();
  box = undefined;
});

function codexHome(): string {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-mcp-codex-")));
  return join(dir, "codex-home");
}

function configAt(home: string): string {
  return join(home, "config.toml");
}

function write(home: string, text: string | null): void {
  if (text === null) return;
  mkdirSync(home, { recursive: true });
  writeFileSync(configAt(home), text);
}

function read(home: string): string | null {
  return existsSync(configAt(home)) ? readFileSync(configAt(home), "utf8") : null;
}

function codex(action: "install" | "uninstall", home: string, options: { print?: boolean; server?: typeof SERVER } = {}): Promise<RegistrationReport> {
  return registerServer(
    action,
    { client: "codex", scope: "user", print: options.print ?? false },
    { env: { HOME: join(dir, "home"), CODEX_HOME: home }, cwd: dir, run: runCommand, server: options.server ?? SERVER },
  );
}

describe("codex: install then uninstall gives back config.toml byte for byte", () => {
  for (const [name, original] of Object.entries(ROUND_TRIPS)) {
    test(name, async () => {
      const home = codexHome();
      write(home, original);

      const installed = await codex("install", home);
      expect(installed.status).toBe("installed");
      const after = read(home)!;
      // Only appended: every byte of the file is still there, our table last.
      expect(after.startsWith(original ?? "")).toBe(true);
      expect(after.replace(/\r/g, "").trimEnd().endsWith(BLOCK)).toBe(true);

      expect((await codex("install", home)).status).toBe("already installed");
      expect(read(home)).toBe(after);

      expect((await codex("uninstall", home)).status).toBe("removed");
      expect(read(home)).toBe(original === "" ? null : original);
      expect((await codex("uninstall", home)).status).toBe("not installed");
    });
  }
});

describe("codex: the exact text written", () => {
  test("after one blank line, keeping the file's line endings and its missing final newline", async () => {
    const home = codexHome();
    write(home, `${OTHERS}\n`);
    await codex("install", home);
    expect(read(home)).toBe(`${OTHERS}\n\n${BLOCK}\n`);

    write(home, OTHERS);
    await codex("install", home);
    expect(read(home)).toBe(`${OTHERS}\n\n${BLOCK}`);

    const crlf = `${OTHERS.replace(/\n/g, "\r\n")}\r\n`;
    write(home, crlf);
    await codex("install", home);
    expect(read(home)).toBe(`${crlf}\r\n${TABLE.join("\r\n")}\r\n`);
  });

  test("a new file holds only the table, and goes again at uninstall", async () => {
    const home = codexHome();
    const installed = await codex("install", home);
    expect(read(home)).toBe(`${BLOCK}\n`);
    expect(installed.configPath).toBe(configAt(home));
    const removed = await codex("uninstall", home);
    expect(removed.deletedFile).toBe(true);
    expect(existsSync(configAt(home))).toBe(false);
  });

  test("tables added after ours later stay where they are when ours goes", async () => {
    const home = codexHome();
    write(home, `${OTHERS}\n`);
    await codex("install", home);
    const later = '\n# added later\n[tui]\nnotifications = true\n';
    writeFileSync(configAt(home), `${read(home)}${later}`);
    await codex("uninstall", home);
    expect(read(home)).toBe(`${OTHERS}\n${later}`);
  });

  test("another command is updated in place: the other keys, comments and sub-tables stay", async () => {
    const home = codexHome();
    const before = [
      'model = "gpt-5.5"',
      "",
      "# the wiki",
      "[mcp_servers.codealmanac]",
      'command = "/old/node" # from the old machine',
      "args = [",
      '  "/old/codealmanac/dist/bin.js",',
      '  "mcp", # serve',
      "]",
      "startup_timeout_sec = 20",
      "",
      "[mcp_servers.codealmanac.env]",
      'CODEALMANAC_MCP_WATCH = "0"',
      "",
      "[tui]",
      "notifications = true",
      "",
    ].join("\n");
    write(home, before);
    const updated = await codex("install", home);
    expect(updated.status).toBe("updated");
    expect(read(home)).toBe(
      before.replace(
        'command = "/old/node" # from the old machine\nargs = [\n  "/old/codealmanac/dist/bin.js",\n  "mcp", # serve\n]',
        `${TABLE[1]} # from the old machine\n${TABLE[2]}`,
      ),
    );
    expect((await codex("install", home)).status).toBe("already installed");

    // Uninstall takes the table and its sub-table; the comment above the header is the person's,
    // and keeps its blank line to what follows.
    await codex("uninstall", home);
    expect(read(home)).toBe('model = "gpt-5.5"\n\n# the wiki\n\n[tui]\nnotifications = true\n');
  });

  test("flags a person added after `mcp` count as installed, and survive an update", async () => {
    const home = codexHome();
    const args = (list: string[]) => `args = [${list.map((a) => JSON.stringify(a)).join(", ")}]`;
    const withFlag = `${TABLE[0]}\n${TABLE[1]}\n${args([...SERVER.args, "--allow-queue"])}\n`;
    write(home, withFlag);
    expect((await codex("install", home)).status).toBe("already installed");
    expect(read(home)).toBe(withFlag);

    write(home, `${TABLE[0]}\ncommand = "/old/node"\n${args(["/old/bin.js", "mcp", "--wiki", "docs"])}\n`);
    const updated = await codex("install", home);
    expect(updated.status).toBe("updated");
    expect(updated.server).toEqual({ command: SERVER.command, args: [...SERVER.args, "--wiki", "docs"] });
    expect(read(home)).toBe(`${TABLE[0]}\n${TABLE[1]}\n${args([...SERVER.args, "--wiki", "docs"])}\n`);
  });

  test("a config.toml that is a symlink is written through to its target", async () => {
    const home = codexHome();
    const target = join(dir, "dotfiles", "codex.toml");
    mkdirSync(join(dir, "dotfiles"), { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(target, `${OTHERS}\n`);
    symlinkSync(target, configAt(home));
    const installed = await codex("install", home);
    expect(installed.configPath).toBe(target);
    expect(lstatSync(configAt(home)).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe(`${OTHERS}\n\n${BLOCK}\n`);
    await codex("uninstall", home);
    expect(readFileSync(target, "utf8")).toBe(`${OTHERS}\n`);
  });
});

describe("codex: what is refused, with the file untouched", () => {
  const refusals: [string, string, RegExp][] = [
    ["an inline table", '[mcp_servers]\ncodealmanac = { command = "node", args = ["x"] }\n', /in a form ca does not edit/],
    ["dotted keys", '[mcp_servers]\ncodealmanac.command = "node"\ncodealmanac.args = ["x"]\n', /in a form ca does not edit/],
    ["invalid TOML", 'model = "o3\n', /it is not valid TOML/],
  ];
  for (const [name, text, message] of refusals) {
    test(`${name}: install and uninstall fail and write nothing`, async () => {
      const home = codexHome();
      write(home, text);
      await expect(codex("install", home)).rejects.toThrow(message);
      expect(read(home)).toBe(text);
      if (name !== "invalid TOML") {
        await expect(codex("uninstall", home)).rejects.toThrow(message);
        expect(read(home)).toBe(text);
      }
    });
  }

  test("--scope project is refused", async () => {
    const home = codexHome();
    await expect(
      registerServer("install", { client: "codex", scope: "project", print: false }, { env: { CODEX_HOME: home }, cwd: dir, run: runCommand, server: SERVER }),
    ).rejects.toThrow("Codex has no project scope here: its MCP servers live in $CODEX_HOME/config.toml; use --scope user");
    expect(existsSync(home)).toBe(false);
  });
});

describe("ca mcp install|uninstall --client codex", () => {
  function codexBox(): { box: Sandbox; config: string } {
    box = sandbox();
    return { box, config: join(box.home, ".codex", "config.toml") };
  }

  test("prints what it did, a second install changes nothing, and uninstall with nothing installed exits 0", () => {
    const { box: b, config } = codexBox();
    mkdirSync(join(b.home, ".codex"));
    writeFileSync(config, `${OTHERS}\n`);
    const server = `${SERVER.command} ${SERVER.args.join(" ")}`;

    const first = b.run(["mcp", "install", "--client", "codex"]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(`installed the codealmanac MCP server for Codex (${config}): ${server}\n`);
    const written = readFileSync(config, "utf8");

    const again = b.run(["mcp", "install", "--client", "codex"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`the codealmanac MCP server is already installed for Codex (${config}): ${server}\n`);
    expect(readFileSync(config, "utf8")).toBe(written);

    expect(b.run(["mcp", "uninstall", "--client", "codex"]).stdout).toBe(`removed the codealmanac MCP server from Codex (${config})\n`);
    expect(readFileSync(config, "utf8")).toBe(`${OTHERS}\n`);
    const none = b.run(["mcp", "uninstall", "--client", "codex"]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe(`the codealmanac MCP server is not installed for Codex (${config}); nothing to remove\n`);
  });

  test("--print shows the table it would add or remove and writes nothing", () => {
    const { box: b, config } = codexBox();
    const plan = b.run(["mcp", "install", "--client", "codex", "--print"]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toBe(`# would add to ${config}:\n${BLOCK}\n`);
    expect(existsSync(config)).toBe(false);

    expect(b.run(["mcp", "install", "--client", "codex"]).code).toBe(0);
    const removal = b.run(["mcp", "uninstall", "--client", "codex", "--print"]);
    expect(removal.stdout).toBe(`# would remove from ${config}:\n${BLOCK}\n# and delete ${config}, which would hold nothing else\n`);
    expect(readFileSync(config, "utf8")).toBe(`${BLOCK}\n`);
  });

  test("--json reports the same facts; CODEX_HOME chooses the file", () => {
    const { box: b } = codexBox();
    const home = join(b.dir, "elsewhere");
    const report = b.run(["mcp", "install", "--client", "codex", "--json"], { env: { CODEX_HOME: home } }).json();
    expect(report).toEqual({
      client: "codex",
      scope: "user",
      action: "install",
      status: "installed",
      dry_run: false,
      server: { name: "codealmanac", ...SERVER },
      config_path: join(home, "config.toml"),
      commands: [],
      text: BLOCK,
      deleted_file: false,
      note: null,
    });
    expect(readFileSync(join(home, "config.toml"), "utf8")).toBe(`${BLOCK}\n`);
  });

  test("errors are one line: --scope project, an uneditable file, a missing --client", () => {
    const { box: b, config } = codexBox();
    const project = b.run(["mcp", "install", "--client", "codex", "--scope", "project"]);
    expect(project.code).toBe(1);
    expect(project.stderr).toBe("codealmanac: Codex has no project scope here: its MCP servers live in $CODEX_HOME/config.toml; use --scope user\n");

    mkdirSync(join(b.home, ".codex"));
    writeFileSync(config, 'model = "o3\n');
    const broken = b.run(["mcp", "install", "--client", "codex"]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(new RegExp(`^codealmanac: cannot edit ${config}: it is not valid TOML \\(.+\\); fix it first\\n$`));
    expect(readFileSync(config, "utf8")).toBe('model = "o3\n');

    const missing = b.run(["mcp", "install", "--json"]);
    expect(missing.code).toBe(2);
    const unknown = b.run(["mcp", "install", "--client", "cursor"]);
    expect(unknown.code).toBe(2);
  });
});

const codexProbe = probeCli(
  {
    bin: "codex",
    name: "@openai/codex",
    version: "0.171.0",
    versionLine: (output) => output.trim() === "codex-cli 0.171.0",
    nativePackage: (platform) => `@openai/codex-${platform}`,
  },
  { musl: false },
);
if (codexProbe.skip) console.warn(`[mcp install] skipping the real Codex check: ${codexProbe.skip}`);

describe.skipIf(codexProbe.skip !== null)("the real Codex CLI", () => {
  test("reads the server we wrote, among the user's own settings", () => {
    if (codexProbe.broken) throw new Error(codexProbe.broken);
    const b = (box = sandbox());
    const home = join(b.dir, "codex-home");
    mkdirSync(home);
    writeFileSync(join(home, "config.toml"), `${OTHERS}\n`);
    expect(b.run(["mcp", "install", "--client", "codex"], { env: { CODEX_HOME: home } }).code).toBe(0);
    const got = spawnSync(join(REAL_BIN, "codex"), ["mcp", "get", "codealmanac", "--json"], {
      encoding: "utf8",
      env: { ...b.env, CODEX_HOME: home },
      timeout: 20_000,
    });
    expect(got.status, got.stderr).toBe(0);
    const server = JSON.parse(got.stdout) as { name: string; enabled: boolean; transport: { type: string; command: string; args: string[] } };
    expect(server).toMatchObject({ name: "codealmanac", enabled: true, transport: { type: "stdio", command: SERVER.command, args: SERVER.args } });
  });
});
