import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterEach, expect, test } from "vitest";
import { sandbox, type Sandbox } from "../support/cli.js";
import { checkAndCleanUpAfterEach, expectNoLeftovers, leftovers, sandboxProcesses } from "./support.js";

let box: Sandbox | undefined;
checkAndCleanUpAfterEach(() => box);

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/**
 * A process that sleeps until killed, detached as the queue's workers are, with `env`
 * (a queue process inherits its sandbox's CODEALMANAC_HOME that way). Resolves once it
 * has been spawned, so /proc already shows its own environment.
 */
async function sleeper(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], { env, detached: true, stdio: "ignore" });
  started.push(child);
  await once(child, "spawn");
  return child;
}

test("the leak check waits for a live process that carries the sandbox's CODEALMANAC_HOME, names it, and passes once it is gone", async () => {
  box = sandbox();
  const ours = await sleeper(box.env);
  // Another state root whose path starts with this one's: not the sandbox's, so never reported.
  const foreign = await sleeper({ ...box.env, CODEALMANAC_HOME: `${box.state}-other` });

  expect(sandboxProcesses(box).map((p) => [p.pid, p.role])).toEqual([[ours.pid, "other"]]);
  // What the check names while it waits: ours, never the other state root's.
  const named = leftovers(box).join("\n");
  expect(named).toContain(`still alive: ${ours.pid} (other)`);
  expect(named).not.toContain(`still alive: ${foreign.pid} `);

  let passed = false;
  const check = expectNoLeftovers(box).then(() => (passed = true));
  // The check is waiting on the sleeper: it has looked (the sleeper is still there) and not passed.
  await new Promise((resolve) => setImmediate(resolve));
  expect(passed).toBe(false);
  const exited = once(ours, "exit");
  ours.kill("SIGKILL");
  await exited;
  await check;
  expect(passed).toBe(true);
});
