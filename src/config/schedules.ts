import { oneLine } from "../core/errors.js";
import type { Automation, AutomationTask, ReconcileResult, TaskSettings } from "../automation/model.js";

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
