/* global document, window, fetch, URLSearchParams, CustomEvent */
// Every request goes through here: the selected wiki and, when the page was opened with
// one, the `?token=` travel with each call; API failures become ApiError with the server's
// one error shape `{"error":{code,message}}`, which the router shows as a "Viewer error".

export class ApiError extends Error {
  constructor(status, code, message, suggestions = []) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    /** For an unknown page: the slugs of the nearest pages. */
    this.suggestions = suggestions;
  }
}

/** The per-launch token the server embeds in index.html (needed for the cancel POST). */
export function metaToken() {
  const meta = document.querySelector('meta[name="codealmanac-token"]');
  const value = meta ? meta.getAttribute("content") : "";
  return value ? value : null;
}

/** The token the page was opened with (`?token=`), required on every request off loopback. */
export function urlToken() {
  return new URLSearchParams(window.location.search).get("token");
}

/** A same-origin URL for an API path with its query, the wiki and the page's token. */
export function apiUrl(path, wiki, params = {}) {
  const url = new URL(path, window.location.origin);
  for (const [key, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null && item !== "") url.searchParams.append(key, String(item));
    }
  }
  if (wiki) url.searchParams.set("wiki", wiki);
  const token = urlToken();
  if (token) url.searchParams.set("token", token);
  return url.pathname + url.search;
}

/** `/api/page/` + a slug whose `/` stay path separators and everything else is escaped. */
export function apiPath(prefix, value) {
  return prefix + value.split("/").map(encodeURIComponent).join("/");
}

export async function api(path, { wiki, params, method = "GET", body, signal } = {}) {
  const headers = { Accept: "application/json" };
  // On loopback the shell carries the token; off loopback the page was opened with it.
  const token = metaToken() ?? urlToken();
  if (token) headers["X-CodeAlmanac-Token"] = token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(apiUrl(path, wiki, params), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch (error) {
    if (error && error.name === "AbortError") throw error;
    throw new ApiError(0, "unreachable", "The viewer server is not reachable. Is `ca serve` still running?");
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const detail = data && typeof data === "object" ? data.error : null;
    // The state root was deleted under the viewer: every view says so (app.js shows a banner).
    if (detail?.code === "uninstalled") window.dispatchEvent(new CustomEvent("codealmanac:uninstalled", { detail: detail.message }));
    const suggestions = Array.isArray(detail?.suggestions) ? detail.suggestions.filter((slug) => typeof slug === "string") : [];
    throw new ApiError(response.status, detail?.code ?? "http_error", detail?.message ?? `Request failed: ${response.status}`, suggestions);
  }
  return data;
}

export function isAbort(error) {
  return Boolean(error) && error.name === "AbortError";
}
