import type { Span } from "./spans.js";

/**
 * The detectors we own, for shapes no single-vendor rule covers: spans the user marked
 * private, private key blocks (also cut-off ones), credential headers, credentials in URLs
 * and `NAME=value` lines whose name says it holds a secret.
 *
 * Text reaches us raw (a file, a diff) or JSON-escaped (a transcript line), so a "line
 * break" is a real one or a literal `\n`, and a quote may come as `\"`. Every pattern
 * starts with a literal or a narrow class, so the regex engine skips most of a large text
 * without backtracking.
 */
export function ownSpans(text: string): Span[] {
  return [...privateSpans(text), ...privateKeys(text), ...credentialHeaders(text), ...urlCredentials(text), ...secretAssignments(text)];
}

export const PRIVATE_SPAN = "private-span";

/** `<private>…</private>`, tags included; an unclosed tag hides everything after it. */
function privateSpans(text: string): Span[] {
  const spans: Span[] = [];
  const open = /<[pP][rR][iI][vV][aA][tT][eE]>/g;
  for (let match = open.exec(text); match; match = open.exec(text)) {
    const close = /<\/private>/gi;
    close.lastIndex = match.index + match[0].length;
    const closed = close.exec(text);
    const end = closed ? closed.index + closed[0].length : text.length;
    spans.push({ start: match.index, end, kind: PRIVATE_SPAN });
    open.lastIndex = end;
  }
  return spans;
}

const KEY_BEGIN = /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/g;
const KEY_END = /-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/g;
const KEY_NEXT_BEGIN = new RegExp(KEY_BEGIN.source, "g");
/** The body of a block cut before its END line: base64 lines and `Proc-Type: …` headers. */
const KEY_BODY_LINE = /(?:\r?\n|\\r?\\n|[ \t])*(?:[A-Za-z0-9+/=]{8,}|[A-Za-z-]{2,}: [^\r\n\\]*)/y;
/** A block longer than this is not one key: look no further for its END line. */
const KEY_MAX_CHARS = 20_000;

function privateKeys(text: string): Span[] {
  const spans: Span[] = [];
  KEY_BEGIN.lastIndex = 0;
  for (let begin = KEY_BEGIN.exec(text); begin; begin = KEY_BEGIN.exec(text)) {
    const bodyStart = begin.index + begin[0].length;
    KEY_END.lastIndex = bodyStart;
    const end = KEY_END.exec(text);
    // An END line after another block's BEGIN is that block's: this one was cut off.
    KEY_NEXT_BEGIN.lastIndex = bodyStart;
    const next = KEY_NEXT_BEGIN.exec(text);
    let stop: number;
    if (end && end.index - bodyStart <= KEY_MAX_CHARS && (!next || next.index > end.index)) {
      stop = end.index + end[0].length;
    } else {
      stop = bodyStart;
      KEY_BODY_LINE.lastIndex = stop;
      while (KEY_BODY_LINE.test(text) && KEY_BODY_LINE.lastIndex - bodyStart <= KEY_MAX_CHARS) stop = KEY_BODY_LINE.lastIndex;
    }
    spans.push({ start: begin.index, end: stop, kind: "private-key" });
    KEY_BEGIN.lastIndex = stop;
  }
  return spans;
}

/**
 * `Authorization: Bearer …` and the like, as an HTTP header, a curl `-H`, or a JSON/YAML
 * field. The value (up to the end of the line or its closing quote) is hidden when it looks
 * like a credential, so prose that merely names the header stays.
 */
const CREDENTIAL_HEADER =
  /\b(?:proxy-)?authorization|\bx-api-key|\bapi-key|\bx-auth-token/gi;
const HEADER_VALUE = /(?:\\?["'])?[ \t]*[:=][ \t]*(\\?["']|)([^\r\n"'\\]*)/y;

function credentialHeaders(text: string): Span[] {
  const spans: Span[] = [];
  CREDENTIAL_HEADER.lastIndex = 0;
  for (let name = CREDENTIAL_HEADER.exec(text); name; name = CREDENTIAL_HEADER.exec(text)) {
    HEADER_VALUE.lastIndex = name.index + name[0].length;
    const value = HEADER_VALUE.exec(text);
    if (!value) continue;
    const raw = value[2]!;
    const start = HEADER_VALUE.lastIndex - raw.length;
    // Digest credentials are quoted parameters (`username="a", response="…"`): the value runs
    // past its inner quotes to where the header ends.
    const whole = /^digest\s/i.test(raw) ? text.slice(start, headerEnd(text, start, value[1]!)) : raw;
    const trimmed = whole.trimEnd();
    if (!looksLikeCredential(trimmed.replace(/[\\"',]/g, " "))) continue;
    spans.push({ start, end: start + trimmed.length, kind: "authorization-header" });
    CREDENTIAL_HEADER.lastIndex = start + trimmed.length;
  }
  return spans;
}

/**
 * The end of a header value that holds quotes: a line break (real or JSON-escaped), or,
 * when the value was itself quoted, the quote that closes it, one not escaped more deeply
 * than the opening quote (in JSON `"` closes where `\"` does not).
 */
function headerEnd(text: string, from: number, openingQuote: string): number {
  let end = from;
  while (end < text.length) {
    if (text[end] === "\n" || text[end] === "\r" || text.startsWith("\\n", end)) break;
    if (openingQuote !== "" && text.startsWith(openingQuote, end) && text[end - 1] !== "\\") break;
    end += 1;
  }
  return end;
}

/** A word of token characters long enough to be a key, with a digit or token punctuation (or very long). */
function looksLikeCredential(value: string): boolean {
  return value.split(/[ \t]+/).some((word) => /^[A-Za-z0-9._~+/=:-]{8,}$/.test(word) && (/[0-9+/=_.~-]/.test(word) || word.length >= 24));
}

/** `scheme://user:password@host`: the `user:password` part goes, the scheme and host stay. */
const URL_USERINFO = /:\/\/([^\s/?#@:"'\\<>]{1,256}):([^\s/?#@"'\\<>]{1,256})@/g;
/** The scheme before `://`, checked only where a `user:password@` follows: most of a text has none. */
const SCHEME_BEFORE = /(?:^|[^a-zA-Z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]{1,30}$/;

function urlCredentials(text: string): Span[] {
  const spans: Span[] = [];
  URL_USERINFO.lastIndex = 0;
  for (let match = URL_USERINFO.exec(text); match; match = URL_USERINFO.exec(text)) {
    const password = match[2]!;
    if (isPlaceholder(password) || !SCHEME_BEFORE.test(text.slice(Math.max(0, match.index - 33), match.index))) continue;
    const start = match.index + match[0].length - 1 - password.length - 1 - match[1]!.length;
    spans.push({ start, end: match.index + match[0].length - 1, kind: "url-credentials" });
  }
  return spans;
}

/**
 * `NAME=value` at the start of a line (`.env` files, `export` in a shell, a diff's `+`/`-`
 * line), when a word of
 * NAME is key, token, secret or password. Only the value goes. A value that refers to
 * something else (`$VAR`, `<your key>`) is not a secret.
 */
const ASSIGNMENT =
  /(?:^|\r|\n|\\r|\\n)[+-]?[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]{0,80})[ \t]*=[ \t]*(\\?["']?)([^\s"'\\]{1,4096})/g;
const SECRET_WORDS = new Set(["key", "apikey", "token", "secret", "password", "passwd", "pwd", "passphrase"]);
/** A name ending in one of these describes the secret rather than holding it: `TOKEN_URL`, `KEY_PATH`. */
const DESCRIPTOR_WORDS = new Set([
  "path", "file", "dir", "url", "uri", "endpoint", "host", "name", "id", "ids", "type", "kind", "length", "len", "size",
  "count", "limit", "max", "min", "ttl", "expiry", "expires", "header", "prefix", "format", "field", "env", "var",
  "version", "mode", "enabled", "required", "policy", "algorithm", "alg", "bits", "hint",
]);

function secretAssignments(text: string): Span[] {
  const spans: Span[] = [];
  ASSIGNMENT.lastIndex = 0;
  for (let match = ASSIGNMENT.exec(text); match; match = ASSIGNMENT.exec(text)) {
    if (!namesASecret(match[1]!)) continue;
    const start = match.index + match[0].length - match[3]!.length;
    const quote = match[2]!;
    // A quoted value may hold spaces (`API_KEY="correct horse battery"`): it runs to its closing quote.
    const end = /["']$/.test(quote) ? closingQuote(text, start, quote) : start + match[3]!.length;
    const value = text.slice(start, end).trimEnd();
    if (value.length < 6 || isPlaceholder(value)) continue;
    spans.push({ start, end: start + value.length, kind: "secret-assignment" });
    ASSIGNMENT.lastIndex = end;
  }
  return spans;
}

/** Where a value opened by `quote` (`"`, `'`, or JSON-escaped `\"`) ends: its closing quote, or the end of its line. */
function closingQuote(text: string, from: number, quote: string): number {
  let end = from;
  while (end < text.length && !text.startsWith(quote, end) && text[end] !== "\n" && text[end] !== "\r" && !text.startsWith("\\n", end)) end += 1;
  return end;
}

export function namesASecret(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[_.-]+/)
    .filter(Boolean);
  if (words.length === 0 || DESCRIPTOR_WORDS.has(words[words.length - 1]!)) return false;
  return words.some((word) => SECRET_WORDS.has(word));
}

/** `$VAR`, `${VAR}`, `<password>`, `{{token}}`, `****`, `xxxx`, a bare `password`, and our own markers. */
function isPlaceholder(value: string): boolean {
  return (
    /^(?:\$|<|\{|%|\[redacted)/.test(value) ||
    /^(.)\1*$/.test(value) ||
    /^(?:your|changeme|example|placeholder)/i.test(value) ||
    /^(?:password|passwd|pass|pwd|secret|token|key)$/i.test(value)
  );
}
