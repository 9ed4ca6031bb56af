import { seededRandom } from "../support/random.js";

/**
 * Made-up secrets in the real shapes of each supported format, and near-misses that look
 * secret-ish but are not. Every secret is generated here from a seeded generator: none is a
 * real credential, and none is written literally in the repository (where it would itself
 * trip a secret scanner).
 */

/** A small deterministic generator (mulberry32), so a failure names the same secret every run. */
export function generator(seed: number) {
  const next = seededRandom(seed);
  const pick = (alphabet: string, length: number) => Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
  return { next, pick };
}

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = "0123456789abcdef";
const B64 = ALNUM + "+/";
const URLSAFE = ALNUM + "_-";

export interface SecretCase {
  /** The kind the redactor must report. */
  kind: string;
  /** The secret itself: it must not survive. */
  secret: string;
  /** The secret in the context it is usually found in. */
  text: string;
}

export function secretCases(seed = 17): SecretCase[] {
  const { pick } = generator(seed);
  const cases: SecretCase[] = [];
  const add = (kind: string, secret: string, text: (secret: string) => string) => cases.push({ kind, secret, text: text(secret) });

  add("aws-access-key", `AKIA${pick(UPPER + DIGITS, 16)}`, (s) => `aws configure set aws_access_key_id ${s}`);
  add("aws-secret-key", pick(B64, 40), (s) => `aws_secret_access_key: "${s}"`);
  add("github-token", `ghp_${pick(ALNUM, 36)}`, (s) => `git clone https://${s}@github.com/acme/app.git`);
  add("github-token", `github_pat_${pick(ALNUM + "_", 82)}`, (s) => `export GH_TOKEN_VALUE ${s}`);
  add("gitlab-token", `glpat-${pick(URLSAFE, 20)}`, (s) => `the CI used ${s} to push`);
  add("slack-token", `xoxb-${pick(DIGITS, 12)}-${pick(DIGITS, 13)}-${pick(ALNUM, 24)}`, (s) => `SLACK_BOT=${s}`);
  add("slack-webhook", `https://hooks.slack.com/services/T${pick(UPPER + DIGITS, 10)}/B${pick(UPPER + DIGITS, 10)}/${pick(ALNUM, 24)}`, (s) => `curl -X POST ${s} -d '{}'`);
  add("openai-key", `sk-proj-${pick(URLSAFE, 74)}T3BlbkFJ${pick(URLSAFE, 74)}`, (s) => `client = OpenAI(api_key="${s}")`);
  add("anthropic-key", `sk-ant-api03-${pick(URLSAFE, 93)}AA`, (s) => `I set the key to ${s} and retried`);
  add("npm-token", `npm_${pick(ALNUM, 36)}`, (s) => `//registry.npmjs.org/:_authToken=${s}`);
  add("sendgrid-key", `SG.${pick(URLSAFE, 22)}.${pick(URLSAFE, 43)}`, (s) => `sendgrid.setApiKey('${s}');`);
  add("huggingface-token", `hf_${pick(UPPER + LOWER, 34)}`, (s) => `huggingface-cli login --token ${s}`);
  add("docker-token", `dckr_pat_${pick(URLSAFE, 27)}`, (s) => `docker login -u ci -p ${s}`);
  add("vault-token", `hvs.${pick(URLSAFE, 95)}`, (s) => `vault login ${s}`);
  add("databricks-token", `dapi${pick(HEX, 32)}`, (s) => `databricks configure --token ${s}`);
  add("linear-key", `lin_api_${pick(ALNUM, 40)}`, (s) => `linear key ${s}`);
  add("notion-token", `ntn_${pick(DIGITS, 11)}${pick(ALNUM, 35)}`, (s) => `notion integration ${s}`);
  add("groq-key", `gsk_${pick(ALNUM, 52)}`, (s) => `groq ${s}`);
  add("shopify-token", `shpat_${pick(HEX, 32)}`, (s) => `shopify ${s}`);
  add("figma-token", `figd_${pick(URLSAFE, 40)}`, (s) => `figma ${s}`);
  add("vercel-token", `vcp_${pick(ALNUM, 24)}`, (s) => `vercel --token ${s}`);
  add("grafana-token", `glsa_${pick(ALNUM, 32)}_${pick(HEX, 8)}`, (s) => `grafana ${s}`);

  const pemBody = (prefix: string, lines: number) => [prefix + pick(B64, 64 - prefix.length), ...Array.from({ length: lines }, () => pick(B64, 64))].join("\n");
  const rsa = pemBody("MIIEow", 12);
  add("private-key", rsa, (s) => `cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n${s}\n-----END RSA PRIVATE KEY-----\ndone`);
  const openssh = pemBody("b3BlbnNzaC1rZXktdjEAAAAA", 10);
  add("private-key", openssh, (s) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${s}\n-----END OPENSSH PRIVATE KEY-----`);
  const cut = pemBody("MIIEvQ", 6);
  add("private-key", cut, (s) => `the file starts with\n-----BEGIN PRIVATE KEY-----\n${s}\n(output truncated)`);
  const escaped = pemBody("MHcCAQEE", 3);
  add("private-key", escaped, (s) => JSON.stringify({ type: "tool_result", content: `-----BEGIN EC PRIVATE KEY-----\n${s}\n-----END EC PRIVATE KEY-----\n` }).slice(1, -1));

  add("authorization-header", `Bearer ${pick(URLSAFE, 36)}.${pick(URLSAFE, 80)}.${pick(URLSAFE, 43)}`, (s) => `curl -H "Authorization: ${s}" https://api.acme.test/v1/me`);
  add("authorization-header", `Basic ${pick(B64, 28)}=`, (s) => `GET /admin HTTP/1.1\nHost: acme.test\nAuthorization: ${s}\nAccept: */*`);
  add("authorization-header", `token ${pick(HEX, 40)}`, (s) => `{"headers": {"authorization": "${s}"}}`);
  add("authorization-header", pick(ALNUM, 32), (s) => `X-Api-Key: ${s}`);

  add("url-credentials", `deploy:${pick(ALNUM, 16)}`, (s) => `git remote add origin https://${s}@git.acme.test/app.git`);
  add("url-credentials", `app:${pick(ALNUM + "!*", 20)}`, (s) => `DATABASE_URL=postgres://${s}@db.internal:5432/app`);
  add("url-credentials", `admin:${pick(ALNUM, 12)}`, (s) => `mongodb+srv://${s}@cluster0.acme.test/prod`);

  add("secret-assignment", pick(ALNUM, 14), (s) => `DB_PASSWORD=${s}`);
  add("secret-assignment", `sk_live_${pick(ALNUM, 24)}`, (s) => `export STRIPE_SECRET_KEY="${s}"`);
  add("secret-assignment", pick(HEX, 64), (s) => `APP_KEYS\nSESSION_SECRET=${s}\nPORT=3000`);
  add("secret-assignment", pick(URLSAFE, 30), (s) => JSON.stringify({ content: `cat .env\nNODE_ENV=production\nAPI_TOKEN=${s}\n` }).slice(1, -1));
  add("secret-assignment", pick(ALNUM, 20), (s) => `  clientSecret=${s}`);
  add("secret-assignment", pick(ALNUM, 18), (s) => `@@ -1 +1,2 @@\n PORT=3000\n+DB_PASSWORD=${s}`);

  add("private-span", `my home address is ${pick(LOWER, 8)} street ${pick(DIGITS, 3)}`, (s) => `before <private>${s}</private> after`);
  add("private-span", `phone ${pick(DIGITS, 10)}`, (s) => `note: <PRIVATE>${s}`);
  return cases;
}

/** Texts that must come back unchanged. */
export function nearMisses(seed = 18): { name: string; text: string }[] {
  const { pick } = generator(seed);
  const uuid = () => `${pick(HEX, 8)}-${pick(HEX, 4)}-4${pick(HEX, 3)}-a${pick(HEX, 3)}-${pick(HEX, 12)}`;
  const pem = (label: string) => `-----BEGIN ${label}-----\n${Array.from({ length: 6 }, () => pick(B64, 64)).join("\n")}\n-----END ${label}-----`;
  return [
    { name: "git commit hashes", text: `commit ${pick(HEX, 40)}\nMerge: ${pick(HEX, 7)} ${pick(HEX, 7)}\n    git revert ${pick(HEX, 12)}` },
    { name: "UUIDs", text: `{"uuid":"${uuid()}","parentUuid":"${uuid()}","sessionId":"${uuid()}"}` },
    { name: "sha256 digests", text: `sha256:${pick(HEX, 64)}  dist/bin.js\n"integrity": "sha512-${pick(B64, 86)}=="` },
    { name: "base64 image", text: `![chart](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA${pick(B64, 3000)}==)` },
    { name: "test fixtures named token", text: `const token = "test-token";\nexpect(parse({ token: "abc" })).toEqual({ ok: true });\nfunction verify(token: string, secret?: Buffer) {}\nconst password = await prompt("password");` },
    { name: "names that describe a secret", text: `MAX_TOKENS=4096\nTOKEN_URL=https://auth.acme.test/oauth/token\nKEY_PATH=/etc/ssl/private/server.key\nPRIMARY_KEY=id\nKEYBOARD=us\nPASSWORD_MIN_LENGTH=12` },
    { name: "references, not values", text: `API_KEY=$API_KEY\nDB_PASSWORD=\${DB_PASSWORD}\nGITHUB_TOKEN=<your token>\nSECRET=changeme\nAPI_TOKEN=xxxxxxxxxxxx\nTOKEN=abc` },
    { name: "URLs without a password", text: `ssh://git@github.com/acme/app.git\nhttps://user@acme.test/\npostgres://localhost:5432/app\nhttps://acme.test:8443/path?key=value\npostgres://app:\${DB_PASS}@db:5432/app\nany \`scheme://user:password@host\` form` },
    { name: "prose about secrets", text: `The Authorization header carries a bearer token; set API_KEY in your environment.\nAuthorization: required\nThe password reset flow sends a secret link. Keys rotate monthly.` },
    { name: "public keys and certificates", text: `${pem("PUBLIC KEY")}\n${pem("CERTIFICATE")}` },
    { name: "code", text: `import { createHash } from "node:crypto";\nconst key = createHash("sha256").update(input).digest("hex");\nfor (const [key, value] of Object.entries(map)) console.log(key, value);\nheaders: { "Content-Type": "application/json", Authorization: \`Bearer \${token}\` }` },
    { name: "ordinary words", text: "We talked about the keyboard, the token ring network, secrets of good design, and passwordless login." },
  ];
}
