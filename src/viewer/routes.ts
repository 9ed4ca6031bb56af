/** The client's hash routes, for links the server writes into rendered pages. */

const segments = (path: string) => path.split("/").map(encodeURIComponent).join("/");

export function pageRoute(wiki: string, slug: string): string {
  return `#/w/${encodeURIComponent(wiki)}/page/${segments(slug)}`;
}

export function fileRoute(wiki: string, path: string): string {
  return `#/w/${encodeURIComponent(wiki)}/file/${segments(path)}`;
}
