/**
 * Verdicts on the agent CLIs. `doctor` reports each CLI and its login; `setup` only warns
 * when nothing could run at all. A missing login is never fatal when credentials are in
 * the environment: runs then work while `login status` says otherwise.
 */
import { HARNESSES, type HarnessKind } from "../harnesses/catalog.js";
import type { HarnessProbe } from "./harness-probe.js";
import type { Check } from "./model.js";

/**
 * The agents doctor judges: the ones runs use. A problem with another installed agent is a
 * warning, since it only matters to a run that asks for it with `--using`.
 */
export interface JudgedAgents {
  kinds: HarnessKind[];
  /** Why these: `harness.default`, recent runs, or what a run would detect. */
  why: string;
}

/** `harness.<kind>` and `login.<kind>` for each CLI; a failure only for a judged agent, or when no agent is installed at all. */
export function harnessChecks(probes: HarnessProbe[], judged: JudgedAgents): Check[] {
  const noneInstalled = probes.every((p) => p.login === null);
  return probes.flatMap((probe) => {
    const essential = noneInstalled || judged.kinds.includes(probe.kind);
    const judge = (check: Check) => (essential ? check : demoted(check, probe.kind, judged));
    const binary = judge(binaryCheck(probe));
    return probe.login === null ? [binary] : [binary, judge(loginCheck(probe))];
  });
}

/** A failure of an agent runs do not use becomes a warning saying which agent they use. */
function demoted(check: Check, kind: HarnessKind, judged: JudgedAgents): Check {
  if (check.status !== "fail") return check;
  const runs = judged.kinds.length > 0 ? `runs use ${judged.kinds.join(" and ")} (${judged.why})` : "runs do not use it";
  return { ...check, status: "warn", message: `${check.message}; ${runs}, so only \`--using ${kind}\` needs it` };
}

function binaryCheck(probe: HarnessProbe): Check {
  const { kind, readiness } = probe;
  const key = `harness.${kind}`;
  if (readiness.available) return { key, status: "ok", message: readiness.message };
  return { key, status: "fail", message: readiness.message, fix: readiness.repair ?? HARNESSES[kind].install };
}

function loginCheck(probe: HarnessProbe): Check {
  const key = `login.${probe.kind}`;
  const fix = HARNESSES[probe.kind].login;
  if (probe.login === "logged_in") return { key, status: "ok", message: `${probe.kind} is logged in` };
  if (probe.credentials.length > 0) {
    const how = probe.credentials.join(", ");
    const state = probe.login === "unknown" ? "login state unknown" : "not logged in";
    return { key, status: "warn", message: `${probe.kind}: ${state}, but ${how} is set; runs use that instead`, fix };
  }
  if (probe.login === "unknown") {
    return { key, status: "warn", message: `could not tell whether ${probe.kind} is logged in`, fix };
  }
  return { key, status: "fail", message: `${probe.kind} is not logged in`, fix };
}

/** What `setup` warns about: no CLI at all, the chosen one missing, or nothing that could authenticate. */
export function readinessWarnings(probes: HarnessProbe[], using: HarnessKind | null): Check[] {
  const installed = probes.filter((p) => p.login !== null);
  const warnings: Check[] = [];
  if (installed.length === 0) {
    warnings.push({
      key: "harness",
      status: "warn",
      message: "no agent CLI found on PATH; ingest, garden and sync need one (instructions and settings are installed anyway)",
      fix: probes.map((p) => HARNESSES[p.kind].install).join("; or "),
    });
    return warnings;
  }
  const chosen = using ? probes.find((p) => p.kind === using) : undefined;
  if (chosen && chosen.login === null) {
    warnings.push(warning(`harness.${chosen.kind}`, chosen.readiness.message, HARNESSES[chosen.kind].install));
  }
  for (const probe of installed.filter((p) => !p.readiness.available)) {
    warnings.push(warning(`harness.${probe.kind}`, probe.readiness.message, probe.readiness.repair ?? HARNESSES[probe.kind].install));
  }
  const canAuthenticate = installed.some((p) => p.login !== "not_logged_in" || p.credentials.length > 0);
  if (!canAuthenticate) {
    warnings.push({
      key: "login",
      status: "warn",
      message: `no agent CLI is logged in (${installed.map((p) => p.kind).join(", ")}) and no API key is set; runs will fail until one is`,
      fix: installed.map((p) => HARNESSES[p.kind].login).join("; or "),
    });
  }
  return warnings;
}

function warning(key: string, message: string, fix: string): Check {
  return { key, status: "warn", message, fix };
}
