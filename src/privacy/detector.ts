import type { lintSource as LintSource } from "@secretlint/core";
import type { Span } from "./spans.js";

type LintOptions = Parameters<typeof LintSource>[0]["options"];
type LintMessage = Awaited<ReturnType<typeof LintSource>>["messages"][number];

/**
 * The vendor-format detector: secretlint's recommended preset, loaded on first use so the
 * commands that never redact do not pay for its ~200 KB of rules at start-up.
 *
 * Four rules are turned off on purpose:
 * - `basicauth` and `database-connection-string` report the whole URL; our own
 *   `url-credentials` hides just `user:password`, for every scheme, and keeps the host.
 * - `filter-comments` honours `secretlint-disable` comments, which say "this may be
 *   committed", not "this may be sent to an agent": a prompt gets no such exemption.
 * - `gcp` judges whole `.json`/`.p12` files only; a key inside one is a private key block.
 * AWS access key IDs are scanned (the preset leaves them off by default); account IDs are
 * not secrets and stay.
 */
const OFF = new Set(["basicauth", "database-connection-string", "filter-comments", "gcp"].map((rule) => `@secretlint/secretlint-rule-${rule}`));
const AWS = "@secretlint/secretlint-rule-aws";

let loaded: Promise<LintOptions["config"] & { lintSource: typeof LintSource }> | undefined;

/** The preset's rules one by one (a preset's own `disabled` switch is not honoured by its rules). */
function load() {
  loaded ??= Promise.all([import("@secretlint/core"), import("@secretlint/secretlint-rule-preset-recommend")]).then(([core, preset]) => ({
    lintSource: core.lintSource,
    rules: preset.rules
      .filter((rule) => !OFF.has(rule.meta.id))
      .map((rule) =>
        rule.meta.id === AWS
          ? { id: rule.meta.id, rule, options: { enableIDScanRule: true }, allowMessageIds: ["AWSAccountID"] }
          : { id: rule.meta.id, rule },
      ),
  }));
  return loaded;
}

/**
 * The literal every match of a rule contains (a superset of what the rule reports). Running
 * all 20-odd rules over a 100 MB text costs ~2 s; this one scan finds the few places worth
 * showing them, at several times the speed. A preset update that brings a rule missing here
 * fails the redactor's tests, so a new rule is never skipped silently.
 */
export const RULE_PREFIXES: Record<string, string> = {
  aws: "AKIA|ASIA|A3T[A-Z0-9]|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|[sS][eE][cC][rR][eE][tT]_?[aA][cC][cC][eE][sS][sS]",
  npm: "npm_|_authToken|x-oauth-basic",
  slack: "xox[bpaor]-|xapp-|hooks\\.slack\\.com",
  openai: "T3BlbkFJ",
  anthropic: "sk-ant-",
  groq: "gsk_",
  huggingface: "hf_",
  linear: "lin_api_",
  notion: "ntn_",
  privatekey: "PRIVATE KEY",
  sendgrid: "SG\\.",
  shopify: "shp(?:pa|ca|at|ss)_",
  github: "gh[pousr]_|github_pat_",
  gitlab: "glpat-",
  grafana: "glc_|glsa_",
  "1password": "ops_ey",
  "hashicorp-vault": "hv[sbr]\\.",
  vercel: "vc[pciark]_",
  databricks: "dapi",
  docker: "dckr_pat_",
  figma: "figd_",
};
const PREFILTER = new RegExp(Object.values(RULE_PREFIXES).join("|"), "g");
/** What a window around a hit keeps: a rule's match may start a little before its literal and run long after it (a key block). */
const BEFORE = 1024;
const AFTER = 12 * 1024;

export async function detectorSpans(text: string): Promise<Span[]> {
  const windows = candidateWindows(text);
  if (windows.length === 0) return [];
  const { lintSource, rules } = await load();
  // One lint over the windows joined by line breaks; offsets map back window by window.
  const starts: number[] = [];
  let joinedLength = 0;
  const pieces = windows.map(([start, end]) => {
    starts.push(joinedLength);
    joinedLength += end - start + 1;
    return text.slice(start, end);
  });
  const joined = pieces.join("\n");
  const result = await lintSource({
    source: { content: joined, filePath: "/redact.txt", contentType: "text" },
    options: { config: { rules }, noPhysicFilePath: true },
  });
  return result.messages.map((message) => {
    const index = windowOf(starts, message.range[0]);
    const [origin, limit] = windows[index]!;
    const shift = origin - starts[index]!;
    return toSpan(text, message.range[0] + shift, Math.min(message.range[1] + shift, limit), kindOf(message));
  });
}

function candidateWindows(text: string): [number, number][] {
  const windows: [number, number][] = [];
  PREFILTER.lastIndex = 0;
  for (let hit = PREFILTER.exec(text); hit; hit = PREFILTER.exec(text)) {
    const start = Math.max(0, hit.index - BEFORE);
    const end = Math.min(text.length, hit.index + AFTER);
    const last = windows[windows.length - 1];
    if (last && start <= last[1]) last[1] = end;
    else windows.push([start, end]);
  }
  return windows;
}

function windowOf(starts: number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Short stable names: they appear in prompts, in `sync status` and in the secret gate's reports. */
const KIND_BY_MESSAGE: Record<string, string> = {
  AWSAccessKeyID: "aws-access-key",
  AWSSecretAccessKey: "aws-secret-key",
  IncomingWebhook: "slack-webhook",
  PrivateKey: "private-key",
};
const KIND_BY_RULE: Record<string, string> = {
  npm: "npm-token",
  slack: "slack-token",
  openai: "openai-key",
  anthropic: "anthropic-key",
  groq: "groq-key",
  huggingface: "huggingface-token",
  linear: "linear-key",
  notion: "notion-token",
  sendgrid: "sendgrid-key",
  shopify: "shopify-token",
  github: "github-token",
  gitlab: "gitlab-token",
  grafana: "grafana-token",
  "1password": "1password-token",
  "hashicorp-vault": "vault-token",
  vercel: "vercel-token",
  databricks: "databricks-token",
  docker: "docker-token",
  figma: "figma-token",
};

export function kindOf(message: Pick<LintMessage, "ruleId" | "messageId">): string {
  const rule = message.ruleId.replace(/^@secretlint\/secretlint-rule-/, "");
  return KIND_BY_MESSAGE[message.messageId] ?? KIND_BY_RULE[rule] ?? `${rule}-secret`;
}

/** Runs of token characters: a reported range is widened to the whole token it touches. */
const TOKEN_CHAR = /[A-Za-z0-9_+/=-]/;

/**
 * The AWS secret rule reports a range that starts at the variable's name but is only as
 * long as the key, so its tail would survive; widening every range to the end of its token
 * covers that and any rule like it.
 */
function toSpan(text: string, start: number, reportedEnd: number, kind: string): Span {
  let end = reportedEnd;
  while (end < text.length && TOKEN_CHAR.test(text[end]!)) end += 1;
  return { start, end, kind };
}
