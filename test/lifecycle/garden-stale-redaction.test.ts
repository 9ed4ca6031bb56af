/** `ca garden --stale` shows the agent diffs of cited files: a secret committed into one reaches neither its prompt nor the run's folder. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { generator } from "../privacy/corpus.js";
import { filesHolding } from "../privacy/leaks.js";
import { commitAll, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { checkAndCleanUpAfterEach } from "../queue/support.js";

let box: Sandbox;
checkAndCleanUpAfterEach(() => box);

const PAGE = `---
title: Config
topics: [concepts]
sources:
  - {id: env, type: file, path: deploy.env}
---
# Config

The deploy reads its settings from a file [@env].
`;
const HOME = `---
title: Home
summary: The landing page
topics: [concepts]
sources: []
---
# Home

See [Config](concepts/config.md).
`;


test("a secret in a stale page's diff is redacted before the garden prompt", () => {
  box = sandbox();
  const root = writeWiki(join(box.dir, "repo"), { "README.md": HOME, "concepts/config.md": PAGE });
  writeFileSync(join(root, "deploy.env"), "PORT=3000\n");
  commitAll(root);
  const { pick } = generator(31);
  const token = `ghp_${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36)}`;
  const password = pick("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789", 18);
  writeFileSync(join(root, "deploy.env"), `PORT=3000\nGH_PUSH=${token}\nDB_PASSWORD=${password}\n`);
  commitAll(root, "deploy settings");

  const promptFile = join(box.dir, "prompt.txt");
  const result = box.run(["garden", "--stale", "--using", "claude", "--wait", "--json"], { cwd: root, env: { FAKE_CLAUDE_PROMPT_FILE: promptFile } });
  expect(result.json<{ status: string }>().status).toBe("done");
  const prompt = readFileSync(promptFile, "utf8");
  expect(prompt).toContain("+GH_PUSH=[redacted: github-token]");
  expect(prompt).toContain("+DB_PASSWORD=[redacted: secret-assignment]");
  expect(filesHolding([token, password], [promptFile], [join(box.dir, "state")])).toEqual([]);
});
