/**
 * Scheduled maintenance: the tasks the operating system's scheduler runs for the user,
 * and the shapes every scheduler adapter (systemd user timers, cron, launchd) answers in.
 */
export const AUTOMATION_TASKS = ["sync", "garden"] as const;
export type AutomationTask = (typeof AUTOMATION_TASKS)[number];

export const DEFAULT_EVERY_MS: Record<AutomationTask, number> = {
  sync: 5 * 3600_000,
  garden: 24 * 3600_000,
};

export interface TaskSettings {
  enabled: boolean;
  everyMs: number;
}

export type SchedulerKind = "systemd" | "cron" | "launchd";

/** What a scheduled task last did, recorded by the task itself under the state root. */
export interface TaskRunRecord {
  startedAt: number;
  finishedAt: number | null;
  exitCode: number | null;
  /** The scheduled garden's decision per wiki; absent for sync and for records written before it was kept. */
  gardens?: GardenNote[];
}

/**
 * Which garden the scheduled garden queued for one wiki: the stale-targeted one (the default
 * branch moved and drift found stale pages) or the general one; or why it queued none.
 */
export type GardenNote =
  | { repository: string; mode: "stale"; runId: string; stalePages: string[] }
  | { repository: string; mode: "general"; runId: string }
  /** `failed`: the garden was due but could not be queued (the task then exits 1). */
  | { repository: string; mode: "skipped"; reason: string; failed?: true };

/** What a task's run hands back to the run record: its exit code and, for garden, its decisions. */
export interface TaskOutcome {
  exitCode: number;
  gardens?: GardenNote[];
}

export interface ScheduleStatus {
  task: AutomationTask;
  scheduler: SchedulerKind | null;
  installed: boolean;
  /** Installed and active (a timer enabled, a crontab line present, a launchd job loaded). */
  enabled: boolean;
  intervalMs: number | null;
  /** Unit, plist or `crontab` — where the schedule lives. */
  location: string | null;
  lastRun: TaskRunRecord | null;
  /** Problems the scheduler reported while reading status, one line each. */
  notes: string[];
}

export interface ReconcileResult {
  task: AutomationTask;
  enabled: boolean;
  intervalMs: number;
  scheduler: SchedulerKind;
  location: string;
  /** False when the schedule was already exactly as asked. */
  changed: boolean;
}

/** The facade config, setup, doctor and uninstall use; implemented in automation/service.ts. */
export interface Automation {
  /** Installs (enabled) or removes (disabled) one task's schedule so it matches the settings. */
  reconcile(task: AutomationTask, settings: TaskSettings): Promise<ReconcileResult>;
  status(tasks?: readonly AutomationTask[]): Promise<ScheduleStatus[]>;
  /** Removes every schedule we installed; reports what was removed. */
  removeAll(): Promise<ReconcileResult[]>;
}
