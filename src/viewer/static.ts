import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isLoopbackHost } from "./safety.js";

export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/**
 * The packaged client, read once at startup. Requests are answered by looking their path
 * up in this table, never by joining it onto a folder, so no request can name a file
 * outside it.
 */
export interface AssetTable {
  /** The app shell, with the launch token filled in on loopback; null when the assets are missing. */
  shell: string | null;
  get(path: string): Asset | undefined;
  /** Where the assets were looked for, for the error when they are missing. */
  searched: string[];
}

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

const SHELL = "index.html";
const TOKEN_META = /<meta\s+name=["']codealmanac-token["'][^>]*>/gi;

/** dist/viewer/assets next to the bundle's chunks, or src/viewer/assets in a checkout. */
export function assetCandidates(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  return [join(here, "assets"), join(here, "..", "viewer", "assets"), join(here, "viewer", "assets")];
}

export function loadAssets(options: { token: string; bindHost: string; candidates?: string[] }): AssetTable {
  const searched = options.candidates ?? assetCandidates();
  const root = searched.find((dir) => existsSync(join(dir, SHELL)));
  const table = new Map<string, Asset>();
  let shell: string | null = null;
  if (root) {
    for (const rel of listFiles(root, "")) {
      const type = CONTENT_TYPES[extname(rel).toLowerCase()];
      if (!type) continue;
      const body = readFileSync(join(root, rel));
      if (rel === SHELL) {
        shell = withToken(body.toString("utf8"), options.token, isLoopbackHost(options.bindHost));
        continue;
      }
      const asset = { body, type, etag: `"${createHash("sha1").update(body).digest("base64url")}"` };
      // Served at the root (`/app.js`) and under `/assets/`, whichever the shell refers to.
      table.set(`/${rel}`, asset);
      table.set(`/assets/${rel}`, asset);
    }
  }
  return { shell, get: (path) => table.get(path), searched };
}

/**
 * On loopback the page carries the token the cancel button needs. Elsewhere every request
 * already needs the token, and the page never shows it.
 */
function withToken(html: string, token: string, loopback: boolean): string {
  const stripped = html.replace(TOKEN_META, "");
  if (!loopback) return stripped;
  const meta = `<meta name="codealmanac-token" content="${token}">`;
  const head = /<head[^>]*>/i.exec(stripped);
  if (!head) return meta + stripped;
  const at = head.index + head[0].length;
  return stripped.slice(0, at) + meta + stripped.slice(at);
}

function listFiles(root: string, rel: string): string[] {
  const dir = rel === "" ? root : join(root, rel);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !entry.name.startsWith("."))
    .flatMap((entry) => {
      const child = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) return listFiles(root, child);
      return entry.isFile() ? [child] : [];
    });
}
