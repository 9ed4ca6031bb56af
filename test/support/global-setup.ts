import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Every test run gets its own HOME and CODEALMANAC_HOME so nothing ever touches the
 * real home directory. Individual tests make narrower temporary roots of their own.
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "ca-test-home-"));
  process.env.HOME = root;
  process.env.CODEALMANAC_HOME = join(root, ".codealmanac");
  process.env.NO_COLOR = "1";
  return () => rmSync(root, { recursive: true, force: true });
}
