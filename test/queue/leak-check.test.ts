import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterEach, expect, test } from "vitest";
import { sandbox, type Sandbox } from "../support/cli.js";
import { checkAndCleanUpAfterEach, expectNoLeftovers, sandboxProcesses } from "./support.js";

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

test("the leak check names a live process that carries the sandbox's CODEALMANAC_HOME, and passes once it is gone", async () => {
  box = sandbox();
  const ours = await sleeper(box.env);
  // Another state root whose path starts with this one's: not the sandbox's, so never reported.
  const foreign = await sleeper({ ...box.env, CODEALMANAC_HOME: `${box.state}-other` });

  expect(sandboxProcesses(box).map((p) => [p.pid, p.role])).toEqual([[ours.pid, "other"]]);
  // exitMs 0: no grace to exit, so the check looks once and must fail on the sleeper.
  const failure = await expectNoLeftovers(box, { exitMs: 0 }).then(
    () => "(the check passed)",
    (error: Error) => error.message,
  );
  expect(failure).toContain(`still alive: ${ours.pid} (other)`);
  expect(failure).not.toContain(`still alive: ${foreign.pid} `);

  const exited = once(ours, "exit");
  ours.kill("SIGKILL");
  await exited;
  await expect(expectNoLeftovers(box, { exitMs: 0 })).resolves.toBeUndefined();
});
