import { invalid } from "../../core/errors.js";
import type { SourceRef } from "../model.js";

/** `http://` or `https://` at the start, in any case. */
export function isWebAddress(address: string): boolean {
  return /^https?:\/\//i.test(address.trim());
}

/** Another scheme (`ftp://`, `file://`) that would otherwise be taken for a path. */
export function hasOtherScheme(address: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(address.trim()) && !isWebAddress(address);
}

export function parseWebUrl(address: string): URL {
  let url: URL;
  try {
    url = new URL(address.trim());
  } catch {
    throw invalid(`invalid URL: ${address}`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") throw invalid(`invalid URL: ${address}`);
  return url;
}

/** Syntax only: the page is fetched when the run starts, never at queue time. */
export function webRef(address: string, url: URL): SourceRef {
  return { address, kind: "url", title: `Web page ${url.href}`, url: url.href };
}
