import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { generator } from "../privacy/corpus.js";
import { filesHolding } from "../privacy/leaks.js";
import { sandbox, type Sandbox } from "../support/cli.js";
import { checkAndCleanUpAfterEach, emptyRepo, waitForIdle, waitForStatus, type Receipt } from "./support.js";

let box: Sandbox;
checkAndCleanUpAfterEach(() => box);


test("a secret in an ingested file reaches neither the agent's prompt nor the material file; the markers do", async () => {
  box = sandbox();
  const root = emptyRepo(box);
  const { pick } = generator(7);
  const token = `ghp_${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36)}`;
  const password = pick("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789", 18);
  // Large enough to be cut for the prompt: the password at the end lives only in the material file.
  const filler = Array.from({ length: 3000 }, (_, n) => `step ${n}: the deploy script copies the build to the server`).join("\n");
  writeFileSync(join(root, "deploy-notes.md"), `# Deploy\n\nThe CI pushes with ${token} today.\n\n${filler}\n\nDB_PASSWORD=${password}\n`);
  const promptFile = join(box.dir, "prompt.txt");
  const receipt = box
    .run(["ingest", "deploy-notes.md", "--using", "claude", "--json"], { cwd: root, env: { FAKE_CLAUDE_PROMPT_FILE: promptFile } })
    .json<Receipt>();
  await waitForStatus(box, receipt.run_id, ["done"]);

  const prompt = readFileSync(promptFile, "utf8");
  expect(prompt).toContain("The CI pushes with [redacted: github-token] today.");
  expect(prompt).toMatch(/2 secrets were replaced by \[redacted: <kind>\] markers/);
  const materialPath = /the whole material is in (\S+\.md)\./.exec(prompt)?.[1];
  expect(materialPath).toBeDefined();
  expect(readFileSync(materialPath!, "utf8")).toContain("DB_PASSWORD=[redacted: secret-assignment]");
  expect(filesHolding([token, password], [promptFile], [join(box.dir, "state")])).toEqual([]);
});

test("a build's inventory and a garden's wiki summary pass through the redactor too", async () => {
  box = sandbox();
  const root = join(box.dir, "repo");
  const { pick } = generator(8);
  const token = `ghp_${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36)}`;
  mkdirSync(root);
  // A manifest field the inventory quotes, and later a page title the garden summary lists.
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "deployer", bin: { deploy: `bin/deploy --token ${token}` } }));
  const buildPrompt = join(box.dir, "build-prompt.txt");
  const init = box.run(["init", "--using", "claude", "--json"], { cwd: root, env: { FAKE_CLAUDE_PROMPT_FILE: buildPrompt } }).json<Receipt>();
  await waitForStatus(box, init.run_id, ["done"]);
  const build = readFileSync(buildPrompt, "utf8");
  expect(build).toContain("bin/deploy --token [redacted: github-token]");

  writeFileSync(join(root, "almanac", "deploy.md"), `---\ntitle: Deploying with ${token}\ntopics: []\n---\n\nHow deploys run.\n`);
  const gardenPrompt = join(box.dir, "garden-prompt.txt");
  const garden = box.run(["garden", "--using", "claude", "--json"], { cwd: root, env: { FAKE_CLAUDE_PROMPT_FILE: gardenPrompt } }).json<Receipt>();
  await waitForStatus(box, garden.run_id, ["done", "failed"]);
  // The executor has exited and cleaned up after itself once the worker has let the queue go idle.
  await waitForIdle(box);
  const gardenText = readFileSync(gardenPrompt, "utf8");
  expect(gardenText).toContain("Deploying with [redacted: github-token]");
  // The wiki's own index holds the title as the page has it: the page is the user's text, not a prompt.
  const holding = filesHolding([token], [buildPrompt, gardenPrompt], [join(box.dir, "state")]).filter((path) => !/\/index\.db(?:-wal)?$/.test(path));
  expect(holding).toEqual([]);
});
