// The live transcript of a job. Steps arrive in batches (first from the job detail, then
// from the events stream). A step whose `key` is already on screen completes that card (a
// tool's result arriving after its call); more text from the same assistant, or an error
// that repeats the previous one, extends the step before it, the way the server merges
// steps within one batch (src/runs/steps.ts) — so the live view reads like a reload.
import { el } from "./dom.js";
import { basename, clip, middleTruncate, toDate, dateTime } from "./format.js";
import { miniMarkdown } from "./markdown-lite.js";

const VERBS = { read: "Read", write: "Wrote", edit: "Edited", search: "Searched", shell: "Ran", agent: "Delegated", web: "Fetched", mcp: "Called", image: "Viewed" };
const FILE_TOOLS = new Set(["read", "write", "edit", "image"]);
const PAYLOAD_LIMIT = 8000;

export function createTranscript(list, onChange) {
  const items = [];
  const byKey = new Map();
  const seen = new Set();

  function add(steps) {
    for (const step of steps) {
      if (seen.has(step.sequence)) continue;
      seen.add(step.sequence);
      const keyed = step.key ? byKey.get(step.key) : undefined;
      const merged = keyed ?? continued(step);
      if (merged) {
        merged.step = keyed ? { ...step } : mergeStep(merged.step, step);
        const node = renderStep(merged.step);
        // A card the reader opened stays open when its result arrives.
        if (merged.node.querySelector("details[open]")) node.querySelector("details")?.setAttribute("open", "");
        merged.node.replaceWith(node);
        merged.node = node;
      } else {
        const item = { step: { ...step }, node: renderStep(step) };
        items.push(item);
        if (step.key) byKey.set(step.key, item);
        list.append(item.node);
      }
    }
    onChange(items.length);
  }

  function continued(step) {
    const last = items[items.length - 1];
    if (!last) return null;
    if (step.kind === "assistant" && last.step.kind === "assistant" && last.step.actor === step.actor) return last;
    if (step.kind === "error" && last.step.kind === "error" && (step.body ?? "").includes(last.step.body ?? "")) return last;
    return null;
  }

  return { add, count: () => items.length };
}

function mergeStep(old, step) {
  if (step.kind === "assistant") {
    const a = old.body ?? "";
    const b = step.body ?? "";
    const body = a === "" ? b : a.endsWith("\n") || b.startsWith("\n") ? a + b : `${a}\n${b}`;
    return { ...old, body, sequence: step.sequence, timestamp: step.timestamp };
  }
  return { ...old, ...step };
}

export function renderStep(step) {
  const when = toDate(step.timestamp);
  const props = { class: `step step-${step.kind}${step.error ? " is-error" : ""}`, testid: "job-step", dataset: { seq: step.sequence, kind: step.kind, key: step.key ?? "" }, attrs: { title: when ? dateTime(when) : null } };
  switch (step.kind) {
    case "assistant":
      return el("li", props, el("span", { class: "step-actor", text: step.actor || step.title || "Assistant" }), el("div", { class: "step-text" }, miniMarkdown(step.body ?? "")));
    case "tool":
    case "agent":
      return el("li", props, toolCard(step));
    case "warning":
      return el("li", props, el("span", { class: "step-mark mark-warn", text: "!" }), el("span", { text: step.body || step.title }));
    case "error":
      return el(
        "li",
        props,
        el("div", { class: "callout callout-alert" }, el("strong", { text: step.title || "Error" }), step.body ? el("p", { text: step.body }) : null, step.detail ? el("p", { class: "muted", text: step.detail }) : null),
      );
    default:
      return el(
        "li",
        props,
        el("span", { class: "step-mark", text: "·" }),
        el("span", { text: step.title }),
        step.body && step.body.toLowerCase() !== (step.title ?? "").toLowerCase() ? el("span", { class: "muted", text: ` ${clip(step.body, 200)}` }) : null,
      );
  }
}

function toolCard(step) {
  const done = step.status === "completed" || step.status === "done";
  const mark = step.error ? "✕" : done ? "●" : "◐";
  const verb = step.kind === "agent" ? step.title : (VERBS[step.tool ?? ""] ?? step.title);
  const target = cleanTarget(step);
  const payload = usefulPayload(step);
  const details = el(
    "details",
    { class: "step-card", attrs: { open: step.error } },
    el(
      "summary",
      {},
      el("span", { class: `step-mark ${step.error ? "mark-alert" : done ? "mark-done" : "mark-active"}`, text: mark }),
      el("span", { class: "step-verb", text: verb }),
      target ? el("code", { class: "step-target", text: middleTruncate(target, 88) }) : null,
      step.status && !done ? el("span", { class: "tag", text: step.status }) : null,
    ),
    step.detail ? el("p", { class: "step-detail muted", text: step.detail }) : null,
    payload ? el("pre", { class: "step-payload" }, el("code", { text: payload })) : null,
  );
  if (!step.detail && !payload) details.classList.add("is-empty");
  return details;
}

function cleanTarget(step) {
  if (!step.target) return "";
  if (FILE_TOOLS.has(step.tool ?? "")) return basename(step.target);
  return step.target.replace(/^(?:\/bin\/)?(?:ba|z)?sh\s+-l?c\s+(['"])([\s\S]*)\1$/, "$2").replace(/\s+/g, " ").trim();
}

/** The one payload worth reading: the diff or written content, else the output, else the input. */
function usefulPayload(step) {
  let text;
  if (step.kind === "agent") text = step.body ?? "";
  else if ((step.tool === "write" || step.tool === "edit") && step.input) text = step.input;
  else if (typeof step.output === "string" && step.output.trim() !== "") text = step.output;
  else if (step.output !== undefined && step.output !== null && typeof step.output === "object") text = JSON.stringify(step.output, null, 2);
  else text = step.body || step.input || "";
  return text.length > PAYLOAD_LIMIT ? `${text.slice(0, PAYLOAD_LIMIT)}\n… (${text.length - PAYLOAD_LIMIT} more characters)` : text;
}
