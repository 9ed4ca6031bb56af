/* global URLSearchParams */
// Hash routes. Every route carries the wiki, so a reload or a shared link restores the view:
//   #/                          → ask the server which wiki, then redirect
//   #/w/<wiki>/                 overview
//   #/w/<wiki>/page/<slug>      page (slug may contain `/`)
//   #/w/<wiki>/topic/<slug>[?descendants=1]
//   #/w/<wiki>/search?q=&topic=&topic=&mentions=
//   #/w/<wiki>/file/<path>      (a trailing `/` means a folder)
//   #/w/<wiki>/jobs[?filter=active|done|attention]
//   #/w/<wiki>/jobs/<run-id>
//   #/w/<wiki>/graph[?focus=<slug>&depth=2|all=1]
//   #/w/<wiki>/health

/** The route for a location hash, or null when the hash is not ours (e.g. a `#source-…` anchor). */
export function parseHash(hash) {
  const raw = hash.startsWith("#") ? hash.slice(1) : hash;
  if (raw === "" || raw === "/") return { name: "root" };
  if (!raw.startsWith("/")) return null;
  const cut = raw.indexOf("?");
  const path = cut < 0 ? raw : raw.slice(0, cut);
  const params = new URLSearchParams(cut < 0 ? "" : raw.slice(cut + 1));
  const segments = path.split("/");
  if (segments[1] !== "w" || !segments[2]) return { name: "root" };
  const wiki = decode(segments[2]);
  const head = segments[3] ?? "";
  const tail = decode(segments.slice(4).join("/"));
  return routeFor(wiki, head, tail, params);
}

function routeFor(wiki, head, tail, params) {
  switch (head) {
    case "":
      return { name: "overview", wiki };
    case "page":
      return tail ? { name: "page", wiki, slug: tail } : { name: "unknown", wiki };
    case "topic":
      return tail ? { name: "topic", wiki, slug: tail, descendants: params.get("descendants") === "1" } : { name: "unknown", wiki };
    case "search":
      return { name: "search", wiki, q: params.get("q") ?? "", topics: params.getAll("topic").filter(Boolean), mentions: params.get("mentions") ?? "" };
    case "file":
      return tail ? { name: "file", wiki, path: tail } : { name: "unknown", wiki };
    case "jobs":
      return tail ? { name: "job", wiki, runId: tail } : { name: "jobs", wiki, filter: params.get("filter") ?? "all" };
    case "health":
      return { name: "health", wiki };
    case "graph":
      return { name: "graph", wiki, all: params.get("all") === "1", focus: params.get("focus") ?? "", depth: params.get("depth") === "2" ? 2 : 1 };
    default:
      return { name: "unknown", wiki };
  }
}

function decode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const enc = encodeURIComponent;
const encPath = (path) => path.split("/").map(enc).join("/");
const base = (wiki) => `#/w/${enc(wiki)}/`;

function withQuery(href, params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null && item !== "" && item !== false) query.append(key, item === true ? "1" : String(item));
    }
  }
  const text = query.toString();
  return text ? `${href}?${text}` : href;
}

/** Builders for every route; views only link through these (and through safeHref). */
export const to = {
  root: () => "#/",
  overview: (wiki) => base(wiki),
  page: (wiki, slug) => `${base(wiki)}page/${encPath(slug)}`,
  topic: (wiki, slug, descendants = false) => withQuery(`${base(wiki)}topic/${encPath(slug)}`, { descendants }),
  search: (wiki, { q = "", topics = [], mentions = "" } = {}) => withQuery(`${base(wiki)}search`, { q, topic: topics, mentions }),
  file: (wiki, path) => `${base(wiki)}file/${encPath(path)}`,
  jobs: (wiki, filter = "all") => withQuery(`${base(wiki)}jobs`, { filter: filter === "all" ? "" : filter }),
  job: (wiki, runId) => `${base(wiki)}jobs/${enc(runId)}`,
  graph: (wiki, { all = false, focus = "", depth = 1 } = {}) => withQuery(`${base(wiki)}graph`, { focus, depth: depth === 2 ? 2 : "", all }),
  health: (wiki) => `${base(wiki)}health`,
};

/** The same view in another wiki, where that makes sense (a page slug rarely carries over). */
export function sameViewIn(route, wiki) {
  switch (route.name) {
    case "search":
      return to.search(wiki, route);
    case "jobs":
      return to.jobs(wiki, route.filter);
    case "graph":
      // A page in focus rarely exists in the other wiki: its graph starts from its landing page.
      return to.graph(wiki, { all: route.all });
    case "health":
      return to.health(wiki);
    default:
      return to.overview(wiki);
  }
}
