import { appendFileSync, readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { generator } from "../privacy/corpus.js";
import { filesHolding } from "../privacy/leaks.js";
import { sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { checkAndCleanUpAfterEach, waitForStatus } from "../queue/support.js";
import { claudeSession, hoursAgo } from "./transcripts.js";

let box: Sandbox;
checkAndCleanUpAfterEach(() => box);


it("secrets pasted into a session reach neither the synced run's prompt nor any file of the state root", async () => {
  box = sandbox({ CODEX_HOME: "" });
  const repo = writeWiki(join(box.dir, "repo"), {});
  box.run(["reindex"], { cwd: repo });
  const { pick } = generator(23);
  const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const awsKey = `AKIA${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`;
  const apiToken = pick(alnum, 32);
  const keyBody = ["MIIEow" + pick(alnum + "+/", 58), ...Array.from({ length: 8 }, () => pick(alnum + "+/", 64))].join("\n");
  const at = hoursAgo(1);
  const session = claudeSession(box.home, repo, at);
  const pasted = `here is my .env:\nAWS_ACCESS_KEY_ID=${awsKey}\nAPI_TOKEN=${apiToken}\nand the key:\n-----BEGIN RSA PRIVATE KEY-----\n${keyBody}\n-----END RSA PRIVATE KEY-----\n<private>my salary is 123</private> why does deploy fail?`;
  appendFileSync(
    session.path,
    JSON.stringify({ type: "user", uuid: "u-secret", parentUuid: null, sessionId: session.sessionId, cwd: repo, timestamp: at.toISOString(), isSidechain: false, entrypoint: "cli", message: { role: "user", content: pasted } }) + "\n",
  );
  utimesSync(session.path, at, at);
  const prompt = join(box.dir, "prompt.txt");
  const started = box.run(["sync", "--using", "claude", "--json"], { cwd: box.dir, env: { FAKE_CLAUDE_PROMPT_FILE: prompt, FAKE_CLAUDE_DELAY_MS: "0" } }).json<{ started: { run_id: string }[] }>().started;
  expect(started).toHaveLength(1);
  await waitForStatus(box, started[0]!.run_id, ["done"]);

  const text = readFileSync(prompt, "utf8");
  for (const kind of ["aws-access-key", "secret-assignment", "private-key", "private-span"]) expect(text).toContain(`[redacted: ${kind}]`);
  expect(text).toContain("why does deploy fail?");
  const secrets = [awsKey, apiToken, keyBody.slice(0, 40), "my salary"];
  expect(filesHolding(secrets, [prompt], [join(box.dir, "state")])).toEqual([]);
});
