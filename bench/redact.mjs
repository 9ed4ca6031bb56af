// The `redact` section of bench/run.mjs: the redactor (src/privacy/redact.ts) over a
// generated 100 MB Claude-Code-like transcript (JSONL: prose, code, paths, UUIDs, commit
// hashes, tool output) with a few secrets of several kinds scattered through it.
//
// The redactor is not reachable through a CLI command yet, so this section bundles it from
// src/ with esbuild into .bench/redact/ and times it in-process (three runs, median), which is
// what a run pays while it prepares its sources. The figure is MB/s of UTF-16 text read.
//
// Run alone: node bench/redact.mjs [--mb 100] [--runs 3]
import { mulberry32 } from "./generate-wiki.mjs";
import { build } from "esbuild";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUT = join(ROOT, ".bench", "redact");
const MB = 1e6;

async function bundle() {
  mkdirSync(OUT, { recursive: true });
  await build({
    entryPoints: { redact: join(ROOT, "src/privacy/redact.ts") },
    outdir: OUT,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    banner: { js: 'import { createRequire as __caRequire } from "node:module"; const require = __caRequire(import.meta.url);' },
    logLevel: "warning",
  });
  return import(pathToFileURL(join(OUT, "redact.js")).href);
}

const WORDS =
  "the a to of and in is it for that this we run test file page wiki index build queue worker token key secret password config value error result function returns string number update change commit branch merge review".split(
    " ",
  );

/** A transcript of about `bytes` characters with `secrets` made-up secrets; returns the text and the secrets. */
export function transcript(bytes, secretCount = 20, seed = 42) {
  const random = mulberry32(seed);
  const pick = (alphabet, n) => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
  const hex = (n) => pick("0123456789abcdef", n);
  const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  const prose = (n) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
  const bodies = [
    () => prose(120),
    () => `Ran \`npm test\`:\n\n\`\`\`\n${Array.from({ length: 12 }, () => ` ✓ test/${prose(1)}/${prose(1)}.test.ts (${Math.floor(random() * 90)} tests) ${Math.floor(random() * 900)}ms`).join("\n")}\n\`\`\``,
    () => `commit ${hex(40)}\nAuthor: Dev <dev@acme.test>\n\n    ${prose(12)}\n\ndiff --git a/src/${prose(1)}.ts b/src/${prose(1)}.ts\n@@ -10,7 +10,8 @@\n-  const value = compute(input);\n+  const value = await compute(input, { key: options.key });\n   return value;`,
    () => `export function ${prose(1)}Handler(token: string, config: Config): Result {\n  const key = createHash("sha256").update(token).digest("hex");\n  for (const [name, value] of Object.entries(config)) log(name, value);\n  return { ok: true, id: "${uuid()}" };\n}`,
    () => `NODE_ENV=production\nPORT=${Math.floor(random() * 9000)}\nMAX_TOKENS=4096\nLOG_LEVEL=debug\nAPI_URL=https://api.acme.test/v1`,
  ];
  const secretMakers = [
    () => `ghp_${pick(alnum, 36)}`,
    () => `AKIA${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 16)}`,
    () => `sk-ant-api03-${pick(alnum, 93)}AA`,
    () => `xoxb-${pick("0123456789", 12)}-${pick("0123456789", 13)}-${pick(alnum, 24)}`,
  ];
  const lines = [];
  const secrets = [];
  let size = 0;
  const every = Math.max(1, Math.floor(bytes / 1500 / Math.max(1, secretCount)));
  for (let n = 0; size < bytes; n++) {
    let text = bodies[n % bodies.length]();
    if (n % every === every - 1 && secrets.length < secretCount) {
      const secret = secretMakers[secrets.length % secretMakers.length]();
      secrets.push(secret);
      text += secrets.length % 2 ? `\nexport API_TOKEN=${secret}` : `\nI used ${secret} for the call.`;
    }
    const line = JSON.stringify({
      type: n % 2 ? "assistant" : "user",
      uuid: uuid(),
      parentUuid: uuid(),
      sessionId: "3f2b6c1e-9a7d-4e2b-8c1f-0a9b8c7d6e5f",
      cwd: "/home/dev/acme",
      timestamp: new Date(1_760_000_000_000 + n * 1000).toISOString(),
      message: { role: n % 2 ? "assistant" : "user", content: [{ type: "text", text }] },
    });
    lines.push(line);
    size += line.length + 1;
  }
  return { text: lines.join("\n") + "\n", secrets };
}

export async function measureRedact({ mb = 100, runs = 3 } = {}) {
  const { redact } = await bundle();
  const { text, secrets } = transcript(mb * MB);
  const samples = [];
  let last;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    last = await redact(text);
    samples.push(performance.now() - started);
  }
  const survived = secrets.filter((secret) => last.text.includes(secret)).length;
  const median = [...samples].sort((a, b) => a - b)[Math.floor((samples.length - 1) / 2)];
  return {
    samples,
    fields: {
      text_mb: Math.round((text.length / MB) * 10) / 10,
      mb_per_s: Math.round((text.length / MB / (median / 1000)) * 10) / 10,
      secrets_planted: secrets.length,
      secrets_survived: survived,
      redactions: last.redactions,
    },
  };
}

export async function benchRedact(ctx) {
  const { samples, fields } = await measureRedact();
  const figure = ctx.figure({ label: "redact 100 MB transcript", what: "redact() over a generated 100 MB JSONL transcript, in-process", samples, fields });
  ctx.target("redact_throughput", { measurement: figure, stat: "mb_per_s", atLeast: 50, unit: "MB/s", figure: "redact.100mb" });
  return figure;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
  const result = await measureRedact({ mb: option("--mb", 100), runs: option("--runs", 3) });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
