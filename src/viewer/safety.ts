import { randomBytes, timingSafeEqual } from "node:crypto";
import { hostname, networkInterfaces } from "node:os";

/** Sent with every response, errors and event streams included. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

export const TOKEN_HEADER = "x-codealmanac-token";
export const TOKEN_COOKIE = "codealmanac_token";
export const TOKEN_QUERY = "token";

/** A fresh secret per launch: it never outlives the server process. */
export function newLaunchToken(): string {
  return randomBytes(24).toString("base64url");
}

export function isLoopbackHost(host: string): boolean {
  const bare = unbracket(host).toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** `0.0.0.0` and `::` listen on every interface. */
export function isWildcardHost(host: string): boolean {
  const bare = unbracket(host);
  return bare === "0.0.0.0" || bare === "::";
}

/** `host:port` as a URL or Host header writes it (IPv6 in brackets). */
export function hostWithPort(host: string, port: number): string {
  const bare = unbracket(host);
  return `${bare.includes(":") ? `[${bare}]` : bare}:${port}`;
}

/**
 * The Host headers a request may carry: the loopback names and the bound address (also a
 * loopback one such as 127.0.0.2, which the printed URL names), plus every local address
 * for a wildcard bind. Any other name is a page that resolved its own domain to us (DNS
 * rebinding), and is refused.
 */
export function allowedHosts(bindHost: string, port: number): Set<string> {
  const names = new Set(["127.0.0.1", "localhost", "::1", unbracket(bindHost)]);
  if (isWildcardHost(bindHost)) {
    names.add(hostname());
    for (const addresses of Object.values(networkInterfaces())) {
      for (const address of addresses ?? []) names.add(address.address);
    }
  }
  return new Set([...names].map((name) => hostWithPort(name, port).toLowerCase()));
}

export function hostAllowed(header: string | undefined, allowed: Set<string>): boolean {
  return header !== undefined && allowed.has(header.trim().toLowerCase());
}

export function tokenMatches(given: string | null | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export function tokenCookie(token: string): string {
  return `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

/** A browser's Origin must be this server's own; requests without one (curl, same-origin GETs) pass. */
export function sameOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return true;
  return host !== undefined && origin.toLowerCase() === `http://${host.trim().toLowerCase()}`;
}

/**
 * Why a raw request target is refused, or null. Checked before any routing, on the
 * target as sent: dot segments (also percent-encoded) and backslashes never name
 * anything we serve, so they cannot be used to reach outside the assets.
 */
export function unsafeTarget(raw: string): string | null {
  if (!raw.startsWith("/")) return "request target must be a path";
  const path = raw.split("?", 1)[0]!;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return "malformed percent-encoding";
  }
  if (decoded.includes("\\") || decoded.includes("\0")) return "backslash or NUL in path";
  if (decoded.split("/").some((segment) => segment === "." || segment === "..")) return "dot segment in path";
  return null;
}

function unbracket(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}
