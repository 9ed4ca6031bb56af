import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { generator } from "../privacy/corpus.js";
import { filesHolding } from "../privacy/leaks.js";
import { sandbox, type Sandbox } from "../support/cli.js";
import { checkAndCleanUpAfterEach, emptyRepo, waitForStatus, type Receipt } from "./support.js";

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
