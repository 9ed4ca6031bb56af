declare const __CODEALMANAC_VERSION__: string | undefined;

/** Injected by the bundler; tests that import sources directly see "dev". */
export const VERSION: string =
  typeof __CODEALMANAC_VERSION__ === "string" ? __CODEALMANAC_VERSION__ : "0.0.0-dev";

/** The oldest Node.js major CodeAlmanac runs on (package.json `engines`). */
export const MIN_NODE_MAJOR = 20;
