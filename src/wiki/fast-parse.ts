/**
 * `CODEALMANAC_FAST_PARSE=0` turns off the parser's shortcuts (the simple front-matter
 * reader, inline parsing only where a link or citation can be), so tests can check that
 * both paths give the same index. A diagnostic switch, read on every call so one process can
 * compare both.
 */
export const FAST_PARSE_ENV = "CODEALMANAC_FAST_PARSE";

export function fastParse(): boolean {
  return process.env[FAST_PARSE_ENV] !== "0";
}
