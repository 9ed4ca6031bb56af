import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Everything CodeAlmanac writes lives under one root, moved by CODEALMANAC_HOME. */
export interface StatePaths {
  root: string;
  database: string;
  config: string;
  repos: string;
  logs: string;
  runLogs: string;
  /** Per-run working folders (material too long for a prompt); never inside a repository. */
  runs: string;
  /** Disposable caches, such as compiled code. */
  cache: string;
}

export function statePaths(env: NodeJS.ProcessEnv = process.env): StatePaths {
  const configured = env.CODEALMANAC_HOME?.trim();
  const root = configured ? resolve(expandHome(configured, env)) : join(homeDir(env), ".codealmanac");
  return {
    root,
    database: join(root, "codealmanac.db"),
    config: join(root, "config.toml"),
    repos: join(root, "repos"),
    logs: join(root, "logs"),
    runLogs: join(root, "logs", "runs"),
    runs: join(root, "runs"),
    cache: join(root, "cache"),
  };
}

export function indexPath(paths: StatePaths, repositoryId: string): string {
  return join(paths.repos, repositoryId, "index.db");
}

export function homeDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOME?.trim() || homedir();
}

export function expandHome(path: string, env: NodeJS.ProcessEnv = process.env): string {
  if (path === "~") return homeDir(env);
  if (path.startsWith("~/")) return join(homeDir(env), path.slice(2));
  return path;
}
