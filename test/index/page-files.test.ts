import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { OrganizeService } from "../../src/index/organize.js";
import { createPageParser } from "../../src/index/parse-file.js";
import { page } from "../support/cli.js";
import { openWiki, type OpenedWiki } from "../support/wiki-index.js";

/**
 * The scan checks each page (a regular file, or a link that stays inside almanac/), and
 * the page is opened later. These tests swap a page between the two, the way a racing
 * writer could, by calling the read right after a refresh: no read may follow the swap
 * out of the wiki.
 */

const SECRET = "root:x:0:0:secret-outside-the-wiki";

let wiki: OpenedWiki | undefined;
afterEach(() => {
  wiki?.close();
  wiki = undefined;
});

function opened(files: Record<string, string>): { wiki: OpenedWiki; almanac: string; outside: string } {
  wiki = openWiki(files);
  const almanac = join(wiki.dir, "almanac");
  // Beside the repository, like /etc/passwd is beside every checkout.
  const outside = join(dirname(wiki.dir), "outside");
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, "passwd"), `${SECRET}\n`);
  return { wiki, almanac, outside };
}

const NOTES = page({ title: "Notes", topics: ["concepts"], sources: [], body: "# Notes\n\nOrdinary words about bananas." });

describe("a page swapped after the scan's check", () => {
  test("for a symlink out of the wiki is not read by show, search excerpts or parsing", async () => {
    const { wiki, almanac, outside } = opened({ "notes.md": NOTES });
    await wiki.index.refresh();
    unlinkSync(join(almanac, "notes.md"));
    symlinkSync(join(outside, "passwd"), join(almanac, "notes.md"));

    const view = await wiki.index.show("notes");
    expect(view.body).not.toContain("root:x");
    expect(view.body).toBe("");
    const { hits } = await wiki.index.search({ query: "bananas" });
    expect(hits.map((hit) => hit.slug)).toEqual(["notes"]);
    expect(hits[0]!.excerpt ?? "").not.toContain("root:x");

    const parsed = createPageParser().parseFile(
      { relPath: "notes.md", absPath: join(almanac, "notes.md"), size: 0, mtimeMs: 0, slug: "notes" },
      realpathSync(almanac),
    );
    expect(parsed.state).toBe("skipped");
    expect(parsed.problems).toEqual([{ category: "page_unreadable", message: "page could not be read (it leads outside almanac/)", line: null }]);
    expect(JSON.stringify(parsed)).not.toContain("root:x");
  });

  test("for a symlink out of the wiki is not read or rewritten by tag", async () => {
    const { wiki, almanac, outside } = opened({ "notes.md": NOTES });
    // tag refreshes first and then reads the page: the swap goes right after that refresh.
    const racing = Object.create(wiki.index, {
      refresh: {
        value: async () => {
          const outcome = await wiki.index.refresh();
          unlinkSync(join(almanac, "notes.md"));
          symlinkSync(join(outside, "passwd"), join(almanac, "notes.md"));
          return outcome;
        },
      },
    }) as typeof wiki.index;
    await expect(new OrganizeService().tag(racing, "notes", ["ops"], "tag")).rejects.toThrow(/notes\.md: it leads outside its folder/);
    expect(readFileSync(join(outside, "passwd"), "utf8")).toBe(`${SECRET}\n`);
  });

  test.runIf(process.platform === "linux")("behind a folder swapped for a symlink out of the wiki is not read", async () => {
    const { wiki, almanac, outside } = opened({ "guides/notes.md": NOTES });
    await wiki.index.refresh();
    renameSync(join(almanac, "guides"), join(wiki.dir, "guides-away"));
    writeFileSync(join(outside, "notes.md"), `${SECRET}\n`);
    symlinkSync(outside, join(almanac, "guides"));

    expect((await wiki.index.show("guides/notes")).body).toBe("");
    const { hits } = await wiki.index.search({ query: "bananas" });
    expect(hits[0]!.excerpt ?? "").not.toContain("root:x");
  });

  test("for a FIFO is refused at once instead of being read", async () => {
    const { wiki, almanac } = opened({ "notes.md": NOTES });
    await wiki.index.refresh();
    const fifo = join(almanac, "notes.md");
    unlinkSync(fifo);
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    // A writer waits at the other end, so a read that opened the FIFO would get the secret instead of hanging.
    const writer = spawn("sh", ["-c", 'printf "%s" "$1" > "$0"', fifo, SECRET], { stdio: "ignore" });
    try {
      const view = await wiki.index.show("notes");
      expect(view.body).toBe("");
      const parsed = createPageParser().parseFile({ relPath: "notes.md", absPath: fifo, size: 0, mtimeMs: 0, slug: "notes" }, realpathSync(almanac));
      expect(parsed.problems[0]).toMatchObject({ category: "page_unreadable", message: "page could not be read (not a regular file)" });
    } finally {
      writer.kill("SIGKILL");
    }
  });
});

describe("symlinks that stay inside the wiki", () => {
  test("a page linked to another page and a folder linked to another folder are read as before", async () => {
    const { wiki, almanac } = opened({
      "guides/notes.md": NOTES,
      "real.md": page({ title: "Real", topics: ["concepts"], sources: [], body: "# Real\n\nCherries in the real page." }),
    });
    symlinkSync("real.md", join(almanac, "alias.md"));
    symlinkSync("guides", join(almanac, "mirror"));
    await wiki.index.refresh();

    expect((await wiki.index.show("alias")).body).toBe("# Real\n\nCherries in the real page.");
    expect((await wiki.index.show("mirror/notes")).body).toBe("# Notes\n\nOrdinary words about bananas.");
    const { hits } = await wiki.index.search({ query: "cherries" });
    expect(hits.map((hit) => [hit.slug, hit.excerpt])).toEqual([
      ["alias", "Cherries in the real page."],
      ["real", "Cherries in the real page."],
    ]);
  });

  test("a link swapped to point out of the wiki after the scan is not followed", async () => {
    const { wiki, almanac, outside } = opened({
      "real.md": page({ title: "Real", topics: ["concepts"], sources: [], body: "# Real\n\nCherries in the real page." }),
    });
    symlinkSync("real.md", join(almanac, "alias.md"));
    await wiki.index.refresh();
    unlinkSync(join(almanac, "alias.md"));
    symlinkSync(join(outside, "passwd"), join(almanac, "alias.md"));
    expect((await wiki.index.show("alias")).body).toBe("");
  });
});
