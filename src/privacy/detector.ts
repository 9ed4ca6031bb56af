import type { lintSource as LintSource } from "@secretlint/core";
import type { Span } from "./spans.js";

type LintOptions = Parameters<typeof LintSource>[0]["options"];
type LintMessage = Awaited<ReturnType<typeof LintSource>>["messages"][number];

/**
 * The vendor-format detector: secretlint's recommended preset, loaded on first use so the
 * commands that never redact do not pay for its ~200 KB of rules at start-up.
 *
 * Three rules are turned off on purpose:
 * - `basicauth` and `database-connection-string` report the whole URL; our own
 *   `url-credentials` hides just `user:password`, for every scheme, and keeps the host.
 * - `filter-comments` honours `secretlint-disable` comments, which say "this may be
 *   committed", not "this may be sent to an agent": a prompt gets no such exemption.
 * AWS access key IDs are scanned (the preset leaves them off by default); account IDs are
 * not secrets and stay.
 */
const OFF = new Set(["basicauth", "database-connection-string", "filter-comments"].map((rule) => `@secretlint/secretlint-rule-${rule}`));
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

export async function detectorSpans(text: string): Promise<Span[]> {
  const { lintSource, rules } = await load();
  const result = await lintSource({
    source: { content: text, filePath: "/redact.txt", contentType: "text" },
    options: { config: { rules }, noPhysicFilePath: true },
  });
  return result.messages.map((message) => toSpan(text, message));
}

/** Short stable names: they appear in prompts, in `sync status` and in the secret gate's reports. */
const KIND_BY_MESSAGE: Record<string, string> = {
  AWSAccessKeyID: "aws-access-key",
  AWSSecretAccessKey: "aws-secret-key",
  PrivateKeyP12: "gcp-key",
  PrivateKeyJSON: "gcp-service-account-key",
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
function toSpan(text: string, message: LintMessage): Span {
  const [start] = message.range;
  let end = message.range[1];
  while (end < text.length && TOKEN_CHAR.test(text[end]!)) end += 1;
  return { start, end, kind: kindOf(message) };
}
