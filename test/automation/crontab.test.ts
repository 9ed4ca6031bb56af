import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import { cronLine, parseCrontab, splitShellWords, withTaskLine } from "../../src/automation/cron-table.js";
import { dueToleranceMs, wakeTickMinutes } from "../../src/automation/wake-tick.js";
import { HOUR, sampleCommand } from "./support.js";

const BEGIN = "# >>> codealmanac >>> (managed by `ca config`; lines in this block are replaced)";
const END = "# <<< codealmanac <<<";
const SYNC_LINE =
  "*/15 * * * * PATH=/home/u/.local/bin:/usr/local/bin:/usr/bin:/bin CODEALMANAC_HOME=/home/u/.codealmanac /usr/bin/node /opt/ca/dist/bin.js __scheduled sync --every 5h >>/home/u/.codealmanac/logs/automation/sync.log 2>&1";

describe("cron lines", () => {
  test("a line wakes on the cron tick and passes the real interval to __scheduled", () => {
    expect(cronLine(5 * HOUR, sampleCommand())).toBe(SYNC_LINE);
  });

  test("the tick is 15 minutes, or a divisor of 60 no longer than a shorter interval", () => {
    expect(wakeTickMinutes(24 * HOUR)).toBe(15);
    expect(wakeTickMinutes(15 * 60_000)).toBe(15);
    expect(wakeTickMinutes(14 * 60_000)).toBe(12);
    expect(wakeTickMinutes(7 * 60_000)).toBe(6);
    expect(wakeTickMinutes(60_000)).toBe(1);
    expect(wakeTickMinutes(20_000)).toBe(1);
    expect(cronLine(7 * 60_000, sampleCommand())).toMatch(/^\*\/6 \* \* \* \* /);
    expect(cronLine(30_000, sampleCommand())).toMatch(/^\* \* \* \* \* /);
    expect(dueToleranceMs(5 * HOUR)).toBe(7.5 * 60_000);
  });

  test("odd characters are shell-quoted, % is escaped for cron, and the line reads back", () => {
    const command = sampleCommand("garden", {
      argv: ["/usr/bin/node", "/opt/it's 100%/bin.js", "__scheduled", "garden"],
      env: [["PATH", "/a b:/c"]],
      logPath: "/s/log dir/garden.log",
    });
    const line = cronLine(24 * HOUR, command);
    expect(line).toBe(
      "*/15 * * * * PATH='/a b:/c' /usr/bin/node '/opt/it'\\''s 100\\%/bin.js' __scheduled garden --every 24h >>'/s/log dir/garden.log' 2>&1",
    );
    const [parsed] = parseCrontab(`${BEGIN}\n${line}\n${END}\n`).lines;
    expect(parsed).toMatchObject({ task: "garden", everyMs: 24 * HOUR, argv: command.argv.concat("--every", "24h") });
    expect(splitShellWords("a 'b c' d\\ e 'it'\\''s'")).toEqual(["a", "b c", "d e", "it's"]);
  });
});

describe("the managed block", () => {
  const FOREIGN = "MAILTO=me@example.com\n# nightly backup\n0 3 * * * /usr/local/bin/backup --all   \n\n@reboot   other-user-style line\t# tab";

  test("a new block goes on top and other text is kept byte for byte, final newline or not", () => {
    const installed = withTaskLine(parseCrontab(FOREIGN), "sync", SYNC_LINE);
    expect(installed).toBe(`${BEGIN}\n${SYNC_LINE}\n${END}\n${FOREIGN}`);
    expect(withTaskLine(parseCrontab(installed), "sync", null)).toBe(FOREIGN);
  });

  test("an empty crontab gets just the block, and loses it again", () => {
    const installed = withTaskLine(parseCrontab(""), "sync", SYNC_LINE);
    expect(installed).toBe(`${BEGIN}\n${SYNC_LINE}\n${END}\n`);
    expect(withTaskLine(parseCrontab(installed), "sync", null)).toBe("");
  });

  test("a block the user moved is updated where it is; sync stays before garden", () => {
    const gardenLine = SYNC_LINE.replace("__scheduled sync --every 5h", "__scheduled garden --every 24h").replace("sync.log", "garden.log");
    const text = `# top\n${BEGIN}\n${gardenLine}\n${END}\n# bottom, no newline`;
    const both = withTaskLine(parseCrontab(text), "sync", SYNC_LINE);
    expect(both).toBe(`# top\n${BEGIN}\n${SYNC_LINE}\n${gardenLine}\n${END}\n# bottom, no newline`);
    const table = parseCrontab(both);
    expect(table.lines.map((l) => [l.task, l.everyMs])).toEqual([
      ["sync", 5 * HOUR],
      ["garden", 24 * HOUR],
    ]);
    expect(withTaskLine(table, "sync", null)).toBe(text);
    expect(withTaskLine(parseCrontab(withTaskLine(table, "sync", null)), "garden", null)).toBe("# top\n# bottom, no newline");
  });

  test("replacing a line with itself gives back the same text", () => {
    const installed = withTaskLine(parseCrontab(FOREIGN), "sync", SYNC_LINE);
    expect(withTaskLine(parseCrontab(installed), "sync", SYNC_LINE)).toBe(installed);
  });
});

describe("a cron line run by /bin/sh", () => {
  test("hands the program exactly its arguments and environment, and appends its output to the log", () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-cron-sh-")));
    try {
      const script = join(dir, "it's 100% odd", "echo args.mjs");
      mkdirSync(dirname(script), { recursive: true });
      writeFileSync(script, "console.log(JSON.stringify({ argv: process.argv.slice(2), path: process.env.PATH, home: process.env.CODEALMANAC_HOME }));\n");
      const log = join(dir, "log dir", "sync.log");
      mkdirSync(dirname(log), { recursive: true });
      const command = sampleCommand("sync", {
        argv: [process.execPath, script, "__scheduled", "sync"],
        env: [["PATH", "/x y:/usr/bin:/bin"], ["CODEALMANAC_HOME", join(dir, "state $HOME")]],
        logPath: log,
      });
      const line = cronLine(5 * HOUR, command);
      // What cron hands to the shell: the command after the five time fields, with \% turned into %.
      const shellCommand = line.split(" ").slice(5).join(" ").replace(/\\%/g, "%");
      const result = spawnSync("/bin/sh", ["-c", shellCommand], { encoding: "utf8", env: {} });
      expect(result.status).toBe(0);
      expect(JSON.parse(readFileSync(log, "utf8"))).toEqual({
        argv: ["__scheduled", "sync", "--every", "5h"],
        path: "/x y:/usr/bin:/bin",
        home: join(dir, "state $HOME"),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
