import { fenced } from "../text.js";

/** gh's JSON, read defensively: a field gh leaves out renders as absent, never as an error. */
export type GithubRecord = Record<string, unknown>;

export function renderPullRequest(pr: GithubRecord, patch: string): string {
  const facts = [
    fact("URL", pr.url),
    fact("State", pr.state),
    fact("Author", person(pr.author)),
    fact("Branches", pr.baseRefName && pr.headRefName ? `${text(pr.headRefName)} → ${text(pr.baseRefName)}` : undefined),
    fact("Created", pr.createdAt),
    fact("Updated", pr.updatedAt),
    fact("Merged", pr.mergedAt),
  ];
  return joinSections([
    `# Pull request: ${text(pr.title)}`,
    facts.filter(Boolean).join("\n"),
    section("Description", quoted(pr.body, "(no description)")),
    section("Files", list(pr.files, (file) => `- ${text(file.path)} (+${text(file.additions)}/-${text(file.deletions)})`)),
    section("Commits", list(pr.commits, renderCommit)),
    section("Comments", list(pr.comments, renderComment, "\n\n")),
    section("Reviews", list(pr.reviews, renderReview, "\n\n")),
    section("Patch", patch.trim() === "" ? "(no output)" : fenced(patch, "diff")),
  ]);
}

export function renderIssue(issue: GithubRecord): string {
  const facts = [
    fact("URL", issue.url),
    fact("State", issue.state),
    fact("Author", person(issue.author)),
    fact("Created", issue.createdAt),
    fact("Updated", issue.updatedAt),
    fact("Closed", issue.closedAt),
    fact("Labels", names(issue.labels, "name")),
    fact("Assignees", names(issue.assignees, "login")),
  ];
  return joinSections([
    `# Issue: ${text(issue.title)}`,
    facts.filter(Boolean).join("\n"),
    section("Description", quoted(issue.body, "(no description)")),
    section("Comments", list(issue.comments, renderComment, "\n\n")),
  ]);
}

function renderCommit(commit: GithubRecord): string {
  const oid = text(commit.oid).slice(0, 12);
  const body = text(commit.messageBody).trim();
  return `- ${oid} ${text(commit.messageHeadline)}${body ? `\n\n${indent(body)}\n` : ""}`;
}

function renderComment(comment: GithubRecord): string {
  const minimized = comment.isMinimized === true ? " (hidden as off-topic or outdated)" : "";
  return `### ${person(comment.author) ?? "someone"} at ${text(comment.createdAt)}${minimized}\n\n${quoted(comment.body, "(empty)")}`;
}

function renderReview(review: GithubRecord): string {
  return `### ${text(review.state)} by ${person(review.author) ?? "someone"} at ${text(review.submittedAt)}\n\n${quoted(review.body, "(no comment)")}`;
}

/** Bodies are Markdown of their own; fenced, their headings cannot pass for this document's sections. */
function quoted(value: unknown, empty: string): string {
  const body = text(value).trim();
  return body === "" ? empty : fenced(body, "markdown");
}

function section(name: string, body: string): string {
  return body === "" ? "" : `## ${name}\n\n${body}`;
}

function joinSections(parts: string[]): string {
  return `${parts.filter((part) => part !== "").join("\n\n")}\n`;
}

function fact(label: string, value: unknown): string {
  const shown = text(value);
  return shown === "" ? "" : `- ${label}: ${shown}`;
}

function list(value: unknown, render: (item: GithubRecord) => string, separator = "\n"): string {
  if (!Array.isArray(value)) return "";
  return value.filter(isRecord).map(render).join(separator);
}

function names(value: unknown, key: string): string {
  if (!Array.isArray(value)) return "";
  return value.filter(isRecord).map((item) => text(item[key])).filter(Boolean).join(", ");
}

function person(value: unknown): string | undefined {
  if (!isRecord(value) || !value.login) return undefined;
  const name = text(value.name);
  return name && name !== value.login ? `${text(value.login)} (${name})` : text(value.login);
}

function text(value: unknown): string {
  if (value === null || value === undefined) return "";
  return typeof value === "string" ? value : String(value);
}

function indent(body: string): string {
  return body.split("\n").map((line) => `  ${line}`).join("\n");
}

function isRecord(value: unknown): value is GithubRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
