import type { SourceKind } from "./model.js";

/** One sentence per kind, telling the agent how to treat the material. */
export const SOURCE_HINTS: Record<SourceKind, string> = {
  file: "A file from the repository: fold what it teaches about the project into the wiki, and read the file itself if this copy is cut.",
  folder:
    "A selection of a folder's files (changed files first, then one per subfolder in turn): document how the folder is organised and what its parts do, reading further files from the repository when needed.",
  git_range:
    "Commits and their combined diff: capture the intent, decisions and behaviour changes behind them, not a changelog of edits.",
  git_commit: "One commit and its diff: capture why the change was made and what it changes in the system's behaviour or design.",
  git_diff:
    "Uncommitted changes captured when the ingest was queued: record only what they establish that will stay true, since they may still change.",
  github_pr:
    "A pull request with its discussion and patch: record the decisions, their reasons and the behaviour changes that outlast the pull request.",
  github_issue:
    "An issue and its discussion: record the problems, constraints and decisions that stay true after the issue is closed.",
  url: "A web page converted to text: keep only what applies to this project, and cite the URL.",
  transcript:
    "A condensed agent session (prompts, replies, one line per tool call): keep only durable project knowledge it establishes, not the session's play-by-play.",
};
