import { api } from "../api.js";
import { el, pathText } from "../dom.js";
import { plural } from "../format.js";
import { emptyState, pageList, setTitle, viewHeader } from "../ui.js";

export async function render({ route, main, signal }) {
  const file = await api("/api/file", { wiki: route.wiki, params: { path: route.path }, signal });
  if (signal.aborted) return;
  const folder = file.kind === "directory";
  const pages = file.pages ?? [];
  const what = folder ? "folder" : "file";
  setTitle(file.path);
  main.append(
    el(
      "div",
      { class: "view view-file", testid: "file", dataset: { exists: file.exists !== false } },
      viewHeader({
        eyebrow: folder ? "Referenced folder" : "Referenced file",
        title: pathText(file.path),
        deck: `${plural(pages.length, "page")} ${pages.length === 1 ? "mentions" : "mention"} this ${what}.`,
        testid: "file-path",
      }),
      // A page may cite a file that was since deleted or moved: say so before listing the pages.
      file.exists === false
        ? el(
            "div",
            { class: "callout callout-alert", testid: "file-missing", attrs: { role: "status" } },
            el("strong", { text: `This ${what} no longer exists in the repository` }),
            el("p", { text: `${file.path} is not in the repository any more: it was deleted, moved or renamed. The pages below still cite it; their references need updating.` }),
          )
        : null,
      pages.length === 0 ? emptyState("No pages mention it", "Pages list the files they describe in their `sources:`.") : pageList(route.wiki, pages, "file-pages"),
    ),
  );
}
