import { describe, expect, test } from "vitest";
import { ciSchedule } from "../../src/automation/ci-schedule.js";
import { GITHUB_CRON } from "../../src/automation/ci-github.js";
import { GITLAB_CRON } from "../../src/automation/ci-gitlab.js";
import { ProductError } from "../../src/core/errors.js";

const github = (every?: string) => ciSchedule(every, GITHUB_CRON);

function refusal(run: () => unknown): ProductError {
  try {
    run();
  } catch (error) {
    if (error instanceof ProductError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("--every as a CI schedule", () => {
  test("a cron expression is taken as it is, spaces normalised", () => {
    expect(github("0  9 * * 1-5")).toBe("0 9 * * 1-5");
    expect(() => github('0 3 * * ";rm"')).toThrow("not a cron expression");
  });

  test("intervals cron runs evenly: minute steps dividing an hour, hour steps dividing a day, daily, weekly", () => {
    expect(github()).toBe("17 3 * * *");
    expect(github("5m")).toBe("*/5 * * * *");
    expect(github("30m")).toBe("*/30 * * * *");
    expect(github("1h")).toBe("17 * * * *");
    expect(github("60m")).toBe("17 * * * *");
    expect(github("4h")).toBe("17 */4 * * *");
    expect(github("12h")).toBe("17 */12 * * *");
    expect(github("1d")).toBe("17 3 * * *");
    expect(github("24h")).toBe("17 3 * * *");
    expect(github("7d")).toBe("17 3 * * 1");
    expect(github("1w")).toBe("17 3 * * 1");
  });

  test("an interval cron cannot run evenly is refused with the nearest ones it can, naming the flag", () => {
    const cases: [string, string][] = [
      ["5h", "4h, 6h"],
      ["90m", "1h, 2h"],
      ["45m", "30m, 1h"],
      ["2d", "1d, 7d"],
      ["36h", "1d, 7d"],
      ["14d", "7d"],
      ["1m", "5m"],
    ];
    for (const [every, nearest] of cases) {
      const error = refusal(() => github(every));
      expect(error.code).toBe("validation_failed");
      expect(error.message).toBe(`invalid --every "${every}": GitHub's cron cannot run every ${every} evenly; nearest: ${nearest} (or give a cron expression such as "17 3 * * *")`);
    }
  });

  test("each provider's shortest interval", () => {
    expect(ciSchedule("10m", GITLAB_CRON)).toBe("*/10 * * * *");
    expect(refusal(() => ciSchedule("5m", GITLAB_CRON)).message).toContain("GitLab's cron cannot run every 5m evenly; nearest: 10m");
  });

  test("what is not a duration or a cron expression", () => {
    expect(refusal(() => github("soon")).message).toBe('invalid --every "soon": expected a duration such as 24h or a cron expression such as "17 3 * * *"');
    expect(() => github("0h")).toThrow('invalid --every "0h"');
  });
});
