import { api } from "../api.js";
import { el } from "../dom.js";
import { plural } from "../format.js";
import { emptyState, pageList, setTitle, viewHeader } from "../ui.js";

export async function render({ route, main, signal }) {
  const file = await api("/api/file", { wiki: route.wiki, params: { path: route.path }, signal });
  if (signal.aborted) return;
  const folder = file.kind === "directory";
  const pages = file.pages ?? [];
  setTitle(file.path);
  main.append(
    el(
      "div",
      { class: "view view-file", testid: "file" },
      viewHeader({
        eyebrow: folder ? "Referenced folder" : "Referenced file",
        title: file.path,
        deck: `${plural(pages.length, "page")} ${pages.length === 1 ? "mentions" : "mention"} this ${folder ? "folder" : "file"}.`,
        testid: "file-path",
      }),
      pages.length === 0 ? emptyState("No pages mention it", "Pages list the files they describe in their `sources:`.") : pageList(route.wiki, pages, "file-pages"),
    ),
  );
}
