// The rail's pages tree, built from each page's path under almanac/. Folders render their
// children only when first opened, so a 10,000-page wiki costs a few dozen nodes up front.
import { el } from "./dom.js";
import { folderTitle } from "./format.js";
import { to } from "./routes.js";

const BATCH = 200;

export function buildTree(pages) {
  const root = { name: "", path: "", folders: new Map(), pages: [] };
  for (const page of pages) {
    const parts = (page.path || `${page.slug}.md`).split("/");
    let node = root;
    for (const part of parts.slice(0, -1)) {
      if (!node.folders.has(part)) node.folders.set(part, { name: part, path: node.path ? `${node.path}/${part}` : part, folders: new Map(), pages: [] });
      node = node.folders.get(part);
    }
    node.pages.push(page);
  }
  return root;
}

function sortedFolders(node) {
  return [...node.folders.values()].sort((a, b) => {
    if (a.name === "start-here" || b.name === "start-here") return a.name === "start-here" ? -1 : 1;
    return folderTitle(a.name).localeCompare(folderTitle(b.name));
  });
}

function sortedPages(node) {
  const isReadme = (page) => /(^|\/)README\.md$/i.test(page.path || "");
  return [...node.pages].sort((a, b) => {
    if (isReadme(a) !== isReadme(b)) return isReadme(a) ? -1 : 1;
    return (a.title || a.slug).localeCompare(b.title || b.slug);
  });
}

/** Renders a tree into `list`; `onFolder` is told about every folder element (for opening later). */
export function renderTreeLevel(wiki, node, list, onFolder) {
  const items = [...sortedFolders(node).map((folder) => ({ folder })), ...sortedPages(node).map((page) => ({ page }))];
  appendBatch(wiki, items, 0, list, onFolder);
}

function appendBatch(wiki, items, start, list, onFolder) {
  for (const item of items.slice(start, start + BATCH)) {
    list.append(item.folder ? folderItem(wiki, item.folder, onFolder) : pageItem(wiki, item.page));
  }
  const rest = items.length - start - BATCH;
  if (rest > 0) {
    const more = el("button", {
      class: "link-button",
      text: `Show ${rest} more`,
      attrs: { type: "button" },
      on: {
        click: () => {
          more.parentElement.remove();
          appendBatch(wiki, items, start + BATCH, list, onFolder);
        },
      },
    });
    list.append(el("li", { class: "tree-more" }, more));
  }
}

function folderItem(wiki, folder, onFolder) {
  const children = el("ul", { class: "tree-list" });
  const details = el("details", { class: "tree-folder", dataset: { path: folder.path } }, el("summary", { text: folderTitle(folder.name) }), children);
  let rendered = false;
  const ensure = () => {
    if (rendered) return;
    rendered = true;
    renderTreeLevel(wiki, folder, children, onFolder);
  };
  details.addEventListener("toggle", () => {
    if (details.open) ensure();
  });
  onFolder(folder.path, details, ensure);
  return el("li", {}, details);
}

function pageItem(wiki, page) {
  return el("li", {}, el("a", { class: "tree-page", href: to.page(wiki, page.slug), text: page.title || page.slug, dataset: { slug: page.slug } }));
}
