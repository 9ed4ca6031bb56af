import type { RunEvent } from "../runs/model.js";
import { projectSteps, stepMemory, type RunStep } from "../runs/steps.js";
import { jobStep, type JobStep } from "./shapes.js";

/**
 * Projects a run's events into transcript steps batch after batch, like a follower in the
 * CLI, and gives every step a key that stays the same when a later batch completes it:
 * a tool whose result arrives after its call was sent comes back under the call's key.
 * The same memory keeps a failure reported again in a later batch from being sent twice.
 */
export class StepFeed {
  private readonly memory = stepMemory();
  private readonly keys = new WeakMap<RunStep, string>();

  project(events: RunEvent[]): JobStep[] {
    const before = new Map(this.memory.tools);
    const steps = projectSteps(events, this.memory);
    for (const [toolId, step] of this.memory.tools) {
      const earlier = before.get(toolId);
      const key = earlier && earlier !== step ? this.keys.get(earlier) : undefined;
      if (key) this.keys.set(step, key);
    }
    return steps.map((step) => {
      let key = this.keys.get(step);
      if (!key) {
        key = `s${step.sequence}`;
        this.keys.set(step, key);
      }
      return jobStep(step, key);
    });
  }
}
