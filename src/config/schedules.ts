import { oneLine } from "../core/errors.js";
import type { Automation, AutomationTask, ReconcileResult, TaskSettings } from "../automation/model.js";

/** What to do once a scheduler that failed works: the one way back, whichever command found it broken. */
export const SCHEDULE_APPLY = "once the scheduler works, run `codealmanac config apply` to install the schedules";

/** The one fix for a schedule that could not be updated, whichever command (config set, config apply, setup) saved the settings. */
export const SCHEDULE_FIX = `config.toml is saved; ${SCHEDULE_APPLY}`;

/** One task's schedule after config asked the scheduler to match it. */
export interface ScheduleOutcome {
  task: AutomationTask;
  settings: TaskSettings;
  result: ReconcileResult | null;
  /** One line when the scheduler could not be updated; config.toml is kept either way. */
  error: string | null;
}

/**
 * Asks the scheduler to match one task's settings. A scheduler that is missing or fails
 * is reported, never thrown: by then config.toml is already saved and must stay so.
 */
export async function reconcileTask(
  automation: () => Promise<Automation>,
  task: AutomationTask,
  settings: TaskSettings,
): Promise<ScheduleOutcome> {
  try {
    const result = await (await automation()).reconcile(task, settings);
    return { task, settings, result, error: null };
  } catch (error) {
    return { task, settings, result: null, error: oneLine(error) };
  }
}
