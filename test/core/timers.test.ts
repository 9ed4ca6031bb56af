import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { afterDelay, MAX_TIMER_MS } from "../../src/core/timers.js";

const DAY = 86_400_000;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("a delay past Node's timer limit", () => {
  test("25 days is waited out in steps no timer exceeds, and the action runs at 25 days, not at once", () => {
    const armed = vi.spyOn(globalThis, "setTimeout");
    const action = vi.fn();
    afterDelay(25 * DAY, action);
    vi.advanceTimersByTime(1_000);
    expect(action).not.toHaveBeenCalled();
    vi.advanceTimersByTime(25 * DAY - 1_001);
    expect(action).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(action).toHaveBeenCalledTimes(1);
    const delays = armed.mock.calls.map((call) => call[1] ?? 0);
    expect(delays.length).toBeGreaterThan(1);
    expect(Math.max(...delays)).toBeLessThanOrEqual(MAX_TIMER_MS);
  });

  test("the cancel holds across steps; short delays are one plain timer", () => {
    const action = vi.fn();
    const cancel = afterDelay(60 * DAY, action);
    vi.advanceTimersByTime(30 * DAY);
    cancel();
    vi.advanceTimersByTime(60 * DAY);
    expect(action).not.toHaveBeenCalled();

    const armed = vi.spyOn(globalThis, "setTimeout");
    const soon = vi.fn();
    afterDelay(1_500, soon);
    expect(armed.mock.calls.map((call) => call[1])).toEqual([1_500]);
    vi.advanceTimersByTime(1_500);
    expect(soon).toHaveBeenCalledTimes(1);
  });
});
