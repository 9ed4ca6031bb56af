/**
 * The keys each CI provider documents, at each level of its file: a generated file that
 * uses any other key is one the provider would reject or silently ignore. Small on purpose
 * (the keys our files may reasonably use), not the providers' whole schemas.
 */
import { expect } from "vitest";

type Doc = Record<string, unknown>;

const GITHUB = {
  workflow: ["name", "on", "permissions", "concurrency", "jobs", "env"],
  job: ["name", "runs-on", "permissions", "concurrency", "timeout-minutes", "env", "steps"],
  step: ["name", "uses", "with", "run", "shell", "env", "timeout-minutes"],
};

const GITLAB = {
  /** Global keywords; every other top-level key is a job. */
  global: ["stages", "variables", "default", "include", "workflow"],
  job: ["stage", "image", "rules", "variables", "before_script", "script", "after_script", "timeout", "resource_group", "interruptible"],
  rule: ["if", "when", "changes", "exists", "variables"],
};

function keysOf(value: unknown, where: string): string[] {
  expect(value, where).toBeTypeOf("object");
  expect(value, where).not.toBeNull();
  return Object.keys(value as Doc);
}

function expectKeysWithin(value: unknown, allowed: string[], where: string): void {
  expect(keysOf(value, where).filter((key) => !allowed.includes(key)), `keys of ${where}`).toEqual([]);
}

/** A GitHub Actions workflow: its top level, each job and each step. */
export function expectGithubKeys(doc: unknown): void {
  expectKeysWithin(doc, GITHUB.workflow, "the workflow");
  const jobs = (doc as { jobs: Record<string, { steps: unknown[] }> }).jobs;
  for (const [name, job] of Object.entries(jobs)) {
    expectKeysWithin(job, GITHUB.job, `job ${name}`);
    expect(Array.isArray(job.steps), `steps of ${name}`).toBe(true);
    job.steps.forEach((step, i) => {
      expectKeysWithin(step, GITHUB.step, `step ${i} of ${name}`);
      // A step does one thing: an action or a script.
      expect(Object.keys(step as Doc).filter((key) => key === "uses" || key === "run"), `step ${i} of ${name}`).toHaveLength(1);
    });
  }
}

/** A .gitlab-ci.yml: its global keywords, and each job with its script and rules. */
export function expectGitlabKeys(doc: unknown): void {
  for (const [name, value] of Object.entries(doc as Doc)) {
    if (GITLAB.global.includes(name)) continue;
    expectKeysWithin(value, GITLAB.job, `job ${name}`);
    const job = value as { script: unknown; rules?: unknown[] };
    expect(Array.isArray(job.script) && job.script.every((line) => typeof line === "string"), `script of ${name}`).toBe(true);
    for (const rule of job.rules ?? []) expectKeysWithin(rule, GITLAB.rule, `a rule of ${name}`);
  }
}
