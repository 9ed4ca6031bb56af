// Compiles src/index/postings.wat into src/index/postings-wasm.ts (`npm run build:wasm`;
// with --check, only says whether the committed file is up to date).
// The compiled module is committed, so neither the build nor a test run of the sources
// needs the assembler; test/index/postings-decoder.test.ts checks that the two agree.
import { readFileSync, writeFileSync } from "node:fs";
import wabtModule from "wabt";

const WAT = "src/index/postings.wat";
const OUTPUT = "src/index/postings-wasm.ts";

/** The module's bytes, assembled from the text. */
async function assemble(text) {
  const wabt = await wabtModule();
  const module = wabt.parseWat(WAT, text);
  try {
    module.validate();
    return Buffer.from(module.toBinary({}).buffer);
  } finally {
    module.destroy();
  }
}

/** The TypeScript module that carries the bytes. */
function source(bytes) {
  return [
    `// Written by scripts/build-wasm.mjs from ${WAT.split("/").pop()}: edit that file, then run \`npm run build:wasm\`.`,
    `export const POSTINGS_WASM = "${bytes.toString("base64")}";`,
    "",
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const wanted = source(await assemble(readFileSync(WAT, "utf8")));
  if (process.argv[2] === "--check") {
    // For the test: the committed module must be what the text assembles to.
    if (readFileSync(OUTPUT, "utf8") !== wanted) {
      process.stderr.write(`${OUTPUT} is not ${WAT} assembled: run \`npm run build:wasm\`\n`);
      process.exit(1);
    }
  } else {
    writeFileSync(OUTPUT, wanted);
  }
}
