import type * as ChildProcess from "node:child_process";
import { createRequire } from "node:module";

/**
 * Test seams at exact points of the queue protocol, so races are tested
 * deterministically instead of with sleeps. CODEALMANAC_TEST_HOOKS holds a JSON object
 * mapping a hook name to a shell command, which runs synchronously (once per process)
 * when that point is reached. Nothing happens when the variable is unset.
 */
export type HookName =
  | "beforeIdleRelease"
  | "afterClaim"
  | "cancelAfterIntent"
  | "cancelBeforeFinish"
  | "workerAfterSpawn"
  | "workerLostLock"
  | "beforeClaim"
  | "syncBeforeReserve"
  | "configBeforeLock"
  | "configBeforeWrite";

export interface Hooks {
  run(name: HookName): void;
}

export const noHooks: Hooks = { run: () => undefined };

export function hooksFromEnv(env: NodeJS.ProcessEnv): Hooks {
  const raw = env.CODEALMANAC_TEST_HOOKS;
  if (!raw) return noHooks;
  let commands: Record<string, string>;
  try {
    commands = JSON.parse(raw) as Record<string, string>;
  } catch {
    return noHooks;
  }
  const fired = new Set<string>();
  const childEnv = { ...env };
  delete childEnv.CODEALMANAC_TEST_HOOKS;
  return {
    run(name) {
      const command = commands[name];
      if (!command || fired.has(name)) return;
      fired.add(name);
      // Loaded only when a hook is configured: ordinary commands never pay for child_process.
      const { execSync } = createRequire(import.meta.url)("node:child_process") as typeof ChildProcess;
      execSync(command, { stdio: "inherit", env: { ...childEnv, CODEALMANAC_HOOK: name } });
    },
  };
}
