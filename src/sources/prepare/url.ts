import type { PrepareContext, SourceTools } from "../context.js";
import { SourceUnavailable, unavailable } from "../errors.js";
import type { SourceRef } from "../model.js";
import { fenced, formatSize, looksBinary } from "../text.js";
import { decodeWithCharset } from "./charset.js";
import { htmlToMarkdown, metaCharset } from "./html.js";
import type { Material, Preparer } from "./material.js";

type ContentKind = "html" | "markdown" | "text";

/**
 * Fetches a web page when the run starts (the agent itself may have no network):
 * redirects followed, the whole request bounded in time and the body in size, only
 * text accepted, the declared charset honoured, HTML turned into Markdown.
 */
export const prepareUrl: Preparer = async (ref, ctx, tools) => {
  const request = boundedRequest(ctx, tools);
  try {
    const response = await tools.fetch(ref.url!, { redirect: "follow", signal: request.signal, headers: REQUEST_HEADERS });
    const body = await readTextResponse(response, tools.limits.urlMaxBytes);
    return await renderPage(ref, response, body);
  } catch (error) {
    throw request.explain(error);
  } finally {
    request.done();
  }
};

const REQUEST_HEADERS = {
  accept: "text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.1",
  "user-agent": "codealmanac (ingest)",
};

/** One abort signal for the run's cancellation and this request's deadline, which covers the body too. */
function boundedRequest(ctx: PrepareContext, tools: SourceTools) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, tools.limits.urlTimeoutMs);
  const cancel = () => controller.abort();
  ctx.signal?.addEventListener("abort", cancel, { once: true });
  if (ctx.signal?.aborted) controller.abort();
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      ctx.signal?.removeEventListener("abort", cancel);
    },
    explain: (error: unknown): Error => {
      if (timedOut) return unavailable(`URL request timed out after ${seconds(tools.limits.urlTimeoutMs)}`);
      if (error instanceof SourceUnavailable) return error;
      if (ctx.signal?.aborted) return unavailable("cancelled");
      return unavailable(`URL request failed: ${failureText(error)}`);
    },
  };
}

interface TextBody {
  bytes: Uint8Array;
  kind: ContentKind;
  mediaType: string;
  charset?: string;
}

async function readTextResponse(response: Response, maxBytes: number): Promise<TextBody> {
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw unavailable(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`);
  }
  const header = response.headers.get("content-type") ?? "";
  const mediaType = header.split(";")[0]!.trim().toLowerCase();
  const declared = contentKindOf(mediaType);
  if (declared === null) {
    await response.body?.cancel().catch(() => undefined);
    throw unavailable(`not a text document (${mediaType})`);
  }
  const length = Number(response.headers.get("content-length") ?? Number.NaN);
  if (length > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw unavailable(`URL response is larger than ${formatSize(maxBytes)}`);
  }
  const bytes = await readBounded(response, maxBytes);
  const kind = declared === "unknown" ? sniffKind(bytes) : declared;
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(header)?.[1] ?? (kind === "html" ? metaCharset(bytes) : undefined);
  return { bytes, kind, mediaType: mediaType || "unknown", ...(charset ? { charset } : {}) };
}

const TEXT_APPLICATION_TYPES = new Set(["application/json", "application/xml", "application/javascript", "application/yaml", "application/x-yaml", "application/toml", "application/x-sh", "application/sql"]);

function contentKindOf(mediaType: string): ContentKind | "unknown" | null {
  if (mediaType === "") return "unknown";
  if (mediaType === "text/html" || mediaType === "application/xhtml+xml") return "html";
  if (mediaType === "text/markdown" || mediaType === "text/x-markdown") return "markdown";
  if (mediaType.startsWith("text/") || TEXT_APPLICATION_TYPES.has(mediaType)) return "text";
  if (/^application\/[\w.-]+\+(json|xml)$/.test(mediaType)) return "text";
  return null;
}

/** A server that names no type: binary is refused, markup is HTML, the rest is text. */
function sniffKind(bytes: Uint8Array): ContentKind {
  if (looksBinary(bytes)) throw unavailable("not a text document (binary content without a content type)");
  const start = new TextDecoder("latin1").decode(bytes.subarray(0, 512)).trimStart().toLowerCase();
  return start.startsWith("<!doctype html") || start.startsWith("<html") ? "html" : "text";
}

/** Streams the body and gives up as soon as it passes the limit, whatever the server claimed. */
async function readBounded(response: Response, maxBytes: number): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw unavailable(`URL response is larger than ${formatSize(maxBytes)}`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

async function renderPage(ref: SourceRef, response: Response, body: TextBody): Promise<Material> {
  const notes: string[] = [];
  const text = decodeBody(body, notes);
  const finalUrl = response.url || ref.url!;
  const facts = [`- URL: ${finalUrl}`];
  if (finalUrl !== ref.url) facts.push(`- Requested as: ${ref.url} (redirected)`);
  facts.push(`- Content type: ${body.mediaType}${body.charset ? `; charset=${body.charset}` : ""}`);
  if (body.kind === "html") {
    const page = await htmlToMarkdown(text);
    const heading = page.title ?? finalUrl;
    return { title: `Web page ${finalUrl}${page.title ? `: ${page.title}` : ""}`, text: `# ${heading}\n\n${facts.join("\n")}\n\n${page.markdown || "(empty page)"}\n`, notes, cut: "head" };
  }
  const content = body.kind === "markdown" ? text.trim() : fenced(text, languageOf(body.mediaType));
  return { title: `Web page ${finalUrl}`, text: `# ${finalUrl}\n\n${facts.join("\n")}\n\n${content || "(empty document)"}\n`, notes, cut: "head" };
}

function decodeBody(body: TextBody, notes: string[]): string {
  try {
    return decodeWithCharset(body.bytes, body.charset ?? "utf-8");
  } catch {
    notes.push(`The declared charset ${body.charset} is unknown; the page was read as UTF-8.`);
    return new TextDecoder("utf-8").decode(body.bytes);
  }
}

function languageOf(mediaType: string): string {
  const match = /(json|xml|yaml|toml|javascript|csv|sql)/.exec(mediaType);
  return match?.[1] ?? "";
}

function failureText(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  const source = cause instanceof Error ? cause : error;
  const code = (source as NodeJS.ErrnoException).code;
  const message = source instanceof Error ? source.message : String(source);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
