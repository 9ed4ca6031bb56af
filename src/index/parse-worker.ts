import { parentPort } from "node:worker_threads";
import { createPageParser } from "./parse-file.js";
import { vocabulary } from "./search-terms.js";
import type { ScannedFile } from "./scan.js";

/** A parse worker: turns batches of page files into ParsedFile results for the index writer. */
interface Request {
  id: number;
  /** The wiki folder's real path: pages are read only inside it. */
  root: string;
  files: { file: ScannedFile; hash?: string }[];
}

const parser = createPageParser();
parentPort?.on("message", (request: Request) => {
  const results = request.files.map(({ file, hash }) => parser.parseFile(file, request.root, hash));
  parentPort?.postMessage({ id: request.id, results, terms: vocabulary.takeNew() });
});
