import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { page, writeWiki } from "../support/cli.js";

export const TOPICS = `topics:
  - slug: concepts
    title: Concepts
    description: Ideas the code is built on
    parents: []
  - slug: caching
    title: Caching
    parents: [concepts]
  - slug: guides
    title: Guides
    parents: []
`;

/** A page written to attack the viewer: raw HTML, script URLs in the body and in a source. */
export const HOSTILE = `---
title: Hostile
summary: Tries every trick
topics: [guides]
sources:
  - id: evil
    type: web
    url: javascript:alert(2)
    title: Evil source
  - id: good
    type: web
    url: https://example.com/good
---

# Hostile

<script>alert(1)</script>

<img src=x onerror=alert(3)>

A [click me](javascript:alert(4)) link, a [vb](vbscript:msgbox) link and a [data](data:text/html,<b>x</b>) link [@evil] [@good].

More: [upper](JAVASCRIPT:alert(5)), [spaced](  javascript:alert(6)), [entity](jav&#x09;ascript:alert(7)), [encoded](javascript%3Aalert(8)),
<javascript:alert(9)>, [ref link][bad], ![pic](javascript:alert(10)), [file](file:///etc/passwd), [tel](tel:123) and [ok](https://example.com/ok).

[bad]: javascript:alert(11)
`;

/**
 * The wiki most API tests read, at `<dir>/repo`: a landing page, two guides linking each
 * other, a page in a subtopic, and the hostile page. Every page gets a distinct, fixed
 * modification time so recency order is known.
 */
export function fixtureWiki(dir: string): string {
  const root = join(dir, "repo");
  writeWiki(
    root,
    {
      "README.md": page({ title: "Home", summary: "The landing page", topics: ["concepts"], sources: [], body: "# Home\n\nStart with [setup](guides/setup.md)." }),
      "guides/setup.md": page({
        title: "Setup guide",
        summary: "How to install",
        topics: ["guides"],
        sources: [
          { id: "app", type: "file", path: "src/app.ts" },
          { id: "docs", type: "web", url: "https://example.com/docs", title: "Docs" },
          { id: "unused", type: "file", path: "src/" },
        ],
        body: "# Setup guide\n\nInstall it [@docs]. The entry point [@app] and again [@docs].\n\nRead about [the cache](../concepts/cache.md) and [a missing page](../nowhere.md).\n\n`[@app]` in code stays text.",
      }),
      "concepts/cache.md": page({
        title: "Cache",
        summary: "How the cache works",
        topics: ["caching"],
        sources: [{ id: "app", type: "file", path: "src/app.ts" }],
        body: "# Cache\n\nThe cache lives in the app [@app]. Back to [setup](../guides/setup.md).",
      }),
      "hostile.md": HOSTILE,
    },
    TOPICS,
  );
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "src", "app.ts"), "export {};\n");
  const times: Record<string, number> = { "README.md": 1_700_000_000, "guides/setup.md": 1_700_000_300, "concepts/cache.md": 1_700_000_200, "hostile.md": 1_700_000_100 };
  for (const [rel, seconds] of Object.entries(times)) utimesSync(join(root, "almanac", rel), seconds, seconds);
  return root;
}

const AREAS = ["queue", "index", "viewer", "sync", "setup", "wiki", "ledger", "automation"] as const;

/**
 * A wiki the size of the one issue 18 was tried on, at `<dir>/<name>`: `pages` pages in
 * eight folders, each with its folder's topic (and every third one a second topic), a
 * README linking every folder's first page, and links to the next pages in its folder,
 * to one page of the next folder and back, so it has hubs, clusters and cross links.
 * Titles are long, as real ones are, so labels can collide. Deterministic.
 */
export function generatedWiki(dir: string, pages = 72, name = "big"): { root: string; slugs: string[] } {
  const root = join(dir, name);
  const slugs = Array.from({ length: pages }, (_, i) => `${AREAS[i % AREAS.length]}/part-${String(Math.floor(i / AREAS.length)).padStart(2, "0")}`);
  const files: Record<string, string> = {};
  slugs.forEach((slug, i) => {
    const area = AREAS[i % AREAS.length]!;
    const next = (k: number) => slugs[(i + k * AREAS.length) % pages]!;
    const targets = [next(1), next(2), slugs[(i + 1) % pages]!, ...(i % 5 === 0 ? [slugs[(i + 17) % pages]!] : [])].filter((t) => t !== slug);
    const links = targets.map((target) => `[${target}](../${target}.md)`).join(", ");
    const topics = i % 3 === 0 ? [area, AREAS[(i + 3) % AREAS.length]!] : [area];
    files[`${slug}.md`] = page({
      title: `How the ${area} subsystem handles part ${Math.floor(i / AREAS.length)} of its work`,
      summary: `Part ${i} of the ${area} notes`,
      topics,
      sources: [],
      body: [`# The ${area} part ${i}`, "", `This page explains one part of the ${area} subsystem in some detail.`, "", `## Related`, "", `See ${links}.`].join("\n"),
    });
  });
  files["README.md"] = page({
    title: "Home",
    summary: "The landing page",
    topics: ["queue"],
    sources: [],
    body: ["# Home", "", ...AREAS.map((area, i) => `- [${area}](${slugs[i]}.md)`)].join("\n"),
  });
  const topicsYaml = `topics:\n${AREAS.map((area) => `  - slug: ${area}\n    title: ${area.charAt(0).toUpperCase()}${area.slice(1)}\n    parents: []`).join("\n")}\n`;
  writeWiki(root, files, topicsYaml);
  return { root, slugs };
}
