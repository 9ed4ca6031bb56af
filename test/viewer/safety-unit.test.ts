import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { hostname, networkInterfaces } from "node:os";
import {
  SECURITY_HEADERS,
  TOKEN_COOKIE,
  TOKEN_HEADER,
  TOKEN_QUERY,
  allowedHosts,
  cookieValue,
  hostAllowed,
  hostWithPort,
  isLoopbackHost,
  isWildcardHost,
  newLaunchToken,
  sameOrigin,
  tokenCookie,
  tokenMatches,
  unsafeTarget,
} from "../../src/viewer/safety.js";

/** The viewer's safety checks one by one; test/viewer/security.test.ts drives them through a real server. */

describe("hosts", () => {
  test("the loopback names, in any case and with IPv6 brackets, and nothing that only looks like them", () => {
    for (const host of ["localhost", "LocalHost", "::1", "[::1]", "127.0.0.1", "127.255.0.9"]) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ["0.0.0.0", "::", "127.0.0", "127.0.0.1.evil.com", "x127.0.0.1", "127.0.0.1234", "128.0.0.1", "localhost.evil.com", "[localhost", "192.168.1.5"]) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });

  test("only 0.0.0.0 and :: listen everywhere", () => {
    for (const host of ["0.0.0.0", "::", "[::]"]) expect(isWildcardHost(host), host).toBe(true);
    for (const host of ["127.0.0.1", "::1", "[::1]", "0.0.0.1", "", "localhost"]) expect(isWildcardHost(host), host).toBe(false);
  });

  test("only an address wholly in brackets is unbracketed: a stray bracket is part of the name", () => {
    for (const host of ["[::1", "::1]", "x::1]", "[::1x"]) expect(isLoopbackHost(host), host).toBe(false);
    for (const host of ["[::1", "[::", "::]", "x::]", "[::x"]) expect(isWildcardHost(host), host).toBe(false);
  });

  test("host:port puts an IPv6 address in brackets, once", () => {
    expect(hostWithPort("127.0.0.1", 80)).toBe("127.0.0.1:80");
    expect(hostWithPort("localhost", 5000)).toBe("localhost:5000");
    expect(hostWithPort("::1", 8080)).toBe("[::1]:8080");
    expect(hostWithPort("[::1]", 8080)).toBe("[::1]:8080");
  });

  test("a loopback bind allows exactly the three loopback names on its port", () => {
    const loopback = ["127.0.0.1:5000", "localhost:5000", "[::1]:5000"];
    expect([...allowedHosts("127.0.0.1", 5000)].sort()).toEqual([...loopback].sort());
    expect([...allowedHosts("localhost", 5000)].sort()).toEqual([...loopback].sort());
    expect([...allowedHosts("[::1]", 5000)].sort()).toEqual([...loopback].sort());
  });

  test("another loopback bind allows its own address too, the one its printed URL names", () => {
    expect([...allowedHosts("127.0.0.2", 5000)].sort()).toEqual(["127.0.0.1:5000", "127.0.0.2:5000", "[::1]:5000", "localhost:5000"]);
  });

  test("another bind address is allowed besides them, lower-cased; a wildcard bind allows every local name and address", () => {
    expect([...allowedHosts("Box.LAN", 7)].sort()).toEqual(["127.0.0.1:7", "[::1]:7", "box.lan:7", "localhost:7"]);
    expect([...allowedHosts("[fe80::2]", 7)].sort()).toEqual(["127.0.0.1:7", "[::1]:7", "[fe80::2]:7", "localhost:7"]);
    const wildcard = allowedHosts("0.0.0.0", 9);
    const local = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => hostWithPort(a.address, 9).toLowerCase()));
    expect([...wildcard].sort()).toEqual([...new Set(["0.0.0.0:9", "127.0.0.1:9", "localhost:9", "[::1]:9", `${hostname().toLowerCase()}:9`, ...local])].sort());
  });

  test("a Host header is matched trimmed and in any case, and a missing one is refused", () => {
    const allowed = allowedHosts("127.0.0.1", 5000);
    expect(hostAllowed("127.0.0.1:5000", allowed)).toBe(true);
    expect(hostAllowed(" LOCALHOST:5000 ", allowed)).toBe(true);
    expect(hostAllowed("localhost:5001", allowed)).toBe(false);
    expect(hostAllowed("evil.example:5000", allowed)).toBe(false);
    expect(hostAllowed("", allowed)).toBe(false);
    expect(hostAllowed(undefined, allowed)).toBe(false);
  });
});

describe("the launch token", () => {
  test("is 24 random bytes, URL-safe, fresh per launch", () => {
    const a = newLaunchToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(newLaunchToken()).not.toBe(a);
  });

  test("matches only itself: not a prefix, a longer string, another token of its length, or nothing", () => {
    const token = "s3cret-token";
    expect(tokenMatches(token, token)).toBe(true);
    expect(tokenMatches("s3cret-tokeN", token)).toBe(false);
    expect(tokenMatches("s3cret", token)).toBe(false);
    expect(tokenMatches(`${token}x`, token)).toBe(false);
    expect(tokenMatches("", token)).toBe(false);
    expect(tokenMatches(null, token)).toBe(false);
    expect(tokenMatches(undefined, token)).toBe(false);
  });

  test("the cookie is HttpOnly, SameSite=Strict and site-wide, and reads back by its name", () => {
    expect(tokenCookie("abc")).toBe("codealmanac_token=abc; HttpOnly; SameSite=Strict; Path=/");
    const sent = tokenCookie("abc").split(";")[0]!;
    expect(cookieValue(`theme=dark; ${sent}; other=1`, TOKEN_COOKIE)).toBe("abc");
  });

  test("the names the browser client sends are the ones the server reads", () => {
    const client = readFileSync(new URL("../../src/viewer/assets/js/api.js", import.meta.url), "utf8");
    const header = /headers\["([^"]+)"\] = token/.exec(client)?.[1];
    expect(header?.toLowerCase()).toBe(TOKEN_HEADER);
    expect(client).toContain(`searchParams.set("${TOKEN_QUERY}", token)`);
    expect(TOKEN_QUERY).toBe("token");
  });
});

describe("cookies", () => {
  test("a cookie is found by its exact name among others, with spaces trimmed and `=` kept in the value", () => {
    expect(cookieValue("a=1; codealmanac_token=xyz; b=2", "codealmanac_token")).toBe("xyz");
    expect(cookieValue("  codealmanac_token =  xyz  ", "codealmanac_token")).toBe("xyz");
    expect(cookieValue("codealmanac_token=a=b", "codealmanac_token")).toBe("a=b");
    expect(cookieValue("codealmanac_token=", "codealmanac_token")).toBe("");
    expect(cookieValue("a=1;codealmanac_token=first;codealmanac_token=second", "codealmanac_token")).toBe("first");
  });

  test("no header, another name, a longer name, or a part without `=` is no cookie", () => {
    expect(cookieValue(undefined, "codealmanac_token")).toBeNull();
    expect(cookieValue("", "codealmanac_token")).toBeNull();
    expect(cookieValue("x_codealmanac_token=1; codealmanac_tokens=2", "codealmanac_token")).toBeNull();
    expect(cookieValue("codealmanac_tokenX", "codealmanac_token")).toBeNull();
    expect(cookieValue("codealmanac_token", "codealmanac_toke")).toBeNull();
  });
});

describe("origins", () => {
  test("a request without Origin passes; a browser's Origin must be this server, over http, in any case", () => {
    expect(sameOrigin(undefined, "127.0.0.1:5000")).toBe(true);
    expect(sameOrigin(undefined, undefined)).toBe(true);
    expect(sameOrigin("http://127.0.0.1:5000", "127.0.0.1:5000")).toBe(true);
    expect(sameOrigin("HTTP://LocalHost:5000", " localhost:5000 ")).toBe(true);
    expect(sameOrigin("http://127.0.0.1:5000", undefined)).toBe(false);
    expect(sameOrigin("http://127.0.0.1:5001", "127.0.0.1:5000")).toBe(false);
    expect(sameOrigin("https://127.0.0.1:5000", "127.0.0.1:5000")).toBe(false);
    expect(sameOrigin("http://evil.example", "127.0.0.1:5000")).toBe(false);
    expect(sameOrigin("null", "127.0.0.1:5000")).toBe(false);
  });
});

describe("request targets", () => {
  test("plain paths pass, whatever the query holds", () => {
    for (const target of ["/", "/api/pages", "/pages/a..b/c", "/a/.hidden", "/a/...", "/api/search?q=../../etc&x=%5c", "/a%20b"]) {
      expect(unsafeTarget(target), target).toBeNull();
    }
  });

  test("a target that is not a path, dot segments (also percent-encoded), backslashes, NUL and bad escapes are refused, each saying why", () => {
    expect(unsafeTarget("api/pages")).toBe("request target must be a path");
    expect(unsafeTarget("http://localhost/")).toBe("request target must be a path");
    expect(unsafeTarget("")).toBe("request target must be a path");
    for (const target of ["/a/../b", "/..", "/./x", "/a/.", "/a/%2e%2e/b", "/a/%2E/b", "/a/.%2e?ok=1"]) {
      expect(unsafeTarget(target), target).toBe("dot segment in path");
    }
    for (const target of ["/a\\b", "/a%5cb", "/a%5C..", "/a%00b"]) expect(unsafeTarget(target), target).toBe("backslash or NUL in path");
    expect(unsafeTarget("/a/%zz")).toBe("malformed percent-encoding");
    expect(unsafeTarget("/a/%E0%A4%A")).toBe("malformed percent-encoding");
  });
});

describe("security headers", () => {
  test("the policy: own origin only, no framing, no base or form targets; no sniffing; no referrer", () => {
    expect(SECURITY_HEADERS).toEqual({
      "Content-Security-Policy":
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
    });
  });
});
