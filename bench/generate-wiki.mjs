#!/usr/bin/env node
// Deterministic synthetic wiki generator for benchmarks.
//
//   node bench/generate-wiki.mjs --pages 1000 --out /tmp/wiki-1k [--seed 42] [--shape heavy|light] [--force]
//
// Writes <out>/almanac/README.md, <out>/almanac/topics.yaml, N pages in total (the
// root README counts as one) in a nested folder layout, plus a few small real files
// under <out>/src/ that `type: file` sources point to. The same seed always gives
// byte-identical output. Only Node built-ins are used.
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join, posix, resolve } from "node:path";
import { fileURLToPath } from "node:url";

// ---------------------------------------------------------------------------
// Random numbers

/** mulberry32: a tiny 32-bit PRNG; good enough for synthetic text, fully deterministic. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  constructor(seed) {
    this.next = mulberry32(seed);
  }
  /** Integer in [lo, hi], both inclusive. */
  int(lo, hi) {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p) {
    return this.next() < p;
  }
  pick(list) {
    return list[Math.floor(this.next() * list.length)];
  }
  shuffle(list) {
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const tmp = list[i];
      list[i] = list[j];
      list[j] = tmp;
    }
    return list;
  }
  hex(length) {
    let out = "";
    while (out.length < length) out += Math.floor(this.next() * 0x10000).toString(16).padStart(4, "0");
    return out.slice(0, length);
  }
}

/** A Zipf-weighted sampler: the first words of the list are drawn far more often. */
class Zipf {
  constructor(words, exponent = 1.0) {
    this.words = words;
    this.cum = new Float64Array(words.length);
    let total = 0;
    for (let i = 0; i < words.length; i++) {
      total += 1 / Math.pow(i + 1.5, exponent);
      this.cum[i] = total;
    }
    this.total = total;
  }
  sample(rng) {
    const r = rng.next() * this.total;
    let lo = 0;
    let hi = this.cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cum[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    return this.words[lo];
  }
}

// ---------------------------------------------------------------------------
// Vocabulary (domain-flavoured; inflections and compound identifiers expand it to
// a few thousand distinct tokens)

const words = (text) => [...new Set(text.trim().split(/\s+/))];

const DOMAIN_NOUNS = words(`
queue cache worker index migration token session schema lock lease shard replica snapshot
checkpoint journal ledger buffer batch cursor page record row column table query transaction
commit rollback retry backoff timeout deadline heartbeat signal process thread pool connection
socket request response handler middleware router endpoint payload header cookie credential
secret key certificate signature hash digest checksum manifest artifact bundle module package
dependency plugin adapter driver client server service daemon scheduler runner executor job
task run event message subscriber publisher consumer producer stream channel pipeline stage
hook callback promise iterator generator parser tokenizer lexer compiler bundler loader
resolver registry catalog directory folder file path slug route link anchor citation source
reference excerpt snippet summary title heading section paragraph document frontmatter
metadata tag label filter predicate ranking score weight relevance prefix suffix term phrase
posting segment block chunk offset watermark version revision release branch merge rebase
diff patch hunk conflict lockfile config setting option flag default override environment
variable profile tenant account user role permission scope policy grant audit log trace span
metric counter gauge histogram alert dashboard incident outage regression benchmark baseline
budget quota limit threshold window interval epoch clock timestamp duration latency throughput
bandwidth memory heap stack allocation leak collector footprint disk volume partition inode
symlink mount container image cluster node region zone network proxy gateway balancer firewall
tunnel domain host port protocol handshake encryption cipher nonce salt vault keychain identity
provider federation invite webhook notification email template renderer viewer widget layout
theme terminal prompt command argument subcommand alias shell script harness agent model
transcript conversation invariant contract guarantee constraint assumption tradeoff decision
rationale alternative consequence risk mitigation fallback rollout canary feature experiment
cohort sample fixture mock stub test assertion suite coverage flake seed corpus dataset
vocabulary dictionary graph edge vertex cycle ancestor descendant parent child sibling tree
leaf root hierarchy taxonomy namespace identifier sequence allocator arena sandbox boundary
layer store repository workflow orchestrator interface implementation abstraction primitive
operation verb outcome failure error exception warning notice diagnostic report receipt status
state transition lifecycle phase attempt claim owner holder waiter reader writer mutex semaphore
barrier latch fence deadlock starvation contention backpressure overflow spill compaction
vacuum eviction expiry invalidation warmup preload prefetch hydration serialization encoding
compression deduplication replication sharding indexing caching scheduling retention archive
tombstone cutover handoff drain shutdown startup bootstrap upgrade downgrade backfill
`);

const GENERAL_NOUNS = words(`
team reason change system result problem approach case example detail part way time place
point question answer idea goal rule pattern practice convention habit mistake surprise history
context situation scenario piece area level kind form shape cost benefit value number amount
size order group set list map copy view side end start gap trap gotcha shortcut detour
engineer reviewer maintainer operator customer developer owner newcomer author reader
morning night week month year day minute second hour moment while deadline promise rumour
sketch draft plan proposal note comment hint clue signal reminder warning lesson
`);

const VERBS = words(`
store fetch retry claim release acquire refresh rebuild index parse render validate serialize
compress encrypt decrypt sign verify resolve register route dispatch enqueue dequeue schedule
cancel abort drain flush commit migrate upgrade downgrade snapshot restore replay replicate
rotate revoke grant deny authorize authenticate cache evict invalidate expire warm preload
prefetch stream buffer batch throttle limit debounce coalesce deduplicate merge split join
filter rank score sort compare hash track record log trace measure report alert monitor inspect
debug profile benchmark test mock stub assert document describe explain link cite tag label
group collect gather scan walk visit traverse load save write read open close lock unlock wait
poll notify signal spawn fork kill reap restart recover repair heal detect prevent avoid handle
catch throw raise wrap unwrap expose hide share reuse extend replace remove delete create update
insert select query match search find build compile bundle ship deploy publish subscribe
consume produce emit receive send forward proxy redirect rewrite normalize trim escape quote
encode decode decide prefer adopt keep drop move rename pin bump audit review approve reject
accept mark skip ignore allow require expect assume guarantee ensure check compute derive
estimate allocate reserve free grow shrink reduce increase balance spread isolate contain bound
cap clamp pad align order reorder shuffle sample seed stop plan map submit emit
`);

const ADJECTIVES = words(`
stale fresh durable transient idempotent atomic concurrent parallel sequential lazy eager
incremental full partial empty large small hot cold warm slow fast expensive cheap safe unsafe
strict lenient local remote global shared private public internal external nested flat deep
shallow sorted unique duplicate missing broken orphan dangling valid invalid malformed corrupted
consistent eventual strong weak optimistic pessimistic explicit implicit deterministic random
stable flaky noisy quiet verbose silent hidden visible readable writable mutable immutable
persistent ephemeral derived authoritative canonical legacy modern current previous next
initial final primary secondary upstream downstream synchronous asynchronous blocking bounded
unbounded critical optional required default custom generic specific common rare typical
unusual subtle obvious careful defensive graceful abrupt orderly separate single multiple whole
entire minimal exact approximate relative absolute cached indexed queued pending running
finished failed cancelled expired revoked signed encrypted compressed normalized dirty clean
new old short long narrow wide tiny huge simple complex obscure clear fragile robust brittle
`);

const ADVERBS = words(`
quickly slowly safely rarely often usually always never eventually immediately lazily eagerly
atomically concurrently silently explicitly implicitly carefully deliberately roughly exactly
mostly still already later first again instead together separately gracefully quietly
reliably predictably cheaply sometimes occasionally routinely
`);

const PREPOSITIONS = words(`
in on at for with without from into through across after before during under over behind
between around inside outside within beyond against toward per via
`);

const IRREGULAR = {
  build: ["built", "building"],
  send: ["sent", "sending"],
  split: ["split", "splitting"],
  shrink: ["shrunk", "shrinking"],
  write: ["written", "writing"],
  read: ["read", "reading"],
  find: ["found", "finding"],
  keep: ["kept", "keeping"],
  throw: ["thrown", "throwing"],
  catch: ["caught", "catching"],
  hide: ["hidden", "hiding"],
  spread: ["spread", "spreading"],
  grow: ["grown", "growing"],
  hold: ["held", "holding"],
  run: ["run", "running"],
  set: ["set", "setting"],
  put: ["put", "putting"],
  shut: ["shut", "shutting"],
  wake: ["woken", "waking"],
  seed: ["seeded", "seeding"],
  free: ["freed", "freeing"],
};
const DOUBLING = new Set(
  words("drop stop ship skip pin cap pad wrap unwrap map tag log plan commit emit submit prefer debug trim scan stub"),
);

function plural(noun) {
  if (/(s|x|z|ch|sh)$/.test(noun)) return noun + "es";
  if (/[^aeiou]y$/.test(noun)) return noun.slice(0, -1) + "ies";
  return noun + "s";
}
const third = plural;
function pastParticiple(verb) {
  if (IRREGULAR[verb]) return IRREGULAR[verb][0];
  if (DOUBLING.has(verb)) return verb + verb[verb.length - 1] + "ed";
  if (verb.endsWith("e")) return verb + "d";
  if (/[^aeiou]y$/.test(verb)) return verb.slice(0, -1) + "ied";
  return verb + "ed";
}
function gerund(verb) {
  if (IRREGULAR[verb]) return IRREGULAR[verb][1];
  if (DOUBLING.has(verb)) return verb + verb[verb.length - 1] + "ing";
  if (verb.endsWith("ie")) return verb.slice(0, -2) + "ying";
  if (verb.endsWith("e") && !verb.endsWith("ee")) return verb.slice(0, -1) + "ing";
  return verb + "ing";
}
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const article = (word) => (/^[aeiou]/.test(word) ? "an" : "a");
const ACRONYMS = { cli: "CLI", api: "API", http: "HTTP", sql: "SQL", wal: "WAL", ci: "CI", url: "URL", id: "ID" };
const titleWord = (w) => ACRONYMS[w] ?? cap(w);
const titleCase = (kebab) => kebab.split("-").map(titleWord).join(" ");

/** Pronounceable made-up names for components ("the Korvane scheduler"): the rare tail. */
function pseudoWords(rng, count) {
  const onsets = words("b c d f g h k l m n p r s t v z br cl dr fl gr kr pl st tr th sh");
  const vowels = words("a e i o u ai ea io ou");
  const codas = words("n r s x l th k m nd st rn");
  const out = new Set();
  while (out.size < count) {
    let w = "";
    const syllables = rng.int(2, 3);
    for (let i = 0; i < syllables; i++) w += rng.pick(onsets) + rng.pick(vowels);
    if (rng.chance(0.6)) w += rng.pick(codas);
    if (w.length >= 5 && w.length <= 11) out.add(w);
  }
  return [...out];
}

function buildVocabulary(rng) {
  const nouns = rng.shuffle([...new Set([...DOMAIN_NOUNS])]);
  const general = rng.shuffle([...GENERAL_NOUNS]);
  const verbs = rng.shuffle([...VERBS]);
  const adjectives = rng.shuffle([...ADJECTIVES]);
  const names = pseudoWords(rng, 900);
  return {
    nouns,
    verbs,
    adjectives,
    names,
    noun: new Zipf(nouns, 0.9),
    general: new Zipf(general, 1.0),
    verb: new Zipf(verbs, 0.9),
    adjective: new Zipf(adjectives, 0.9),
    adverb: new Zipf(rng.shuffle([...ADVERBS]), 1.0),
    preposition: new Zipf(rng.shuffle([...PREPOSITIONS]), 1.0),
    name: new Zipf(names, 0.7),
  };
}

// ---------------------------------------------------------------------------
// Prose

class Prose {
  constructor(rng, vocab) {
    this.rng = rng;
    this.v = vocab;
    this.focus = [];
  }
  setFocus(list) {
    this.focus = list;
  }
  noun() {
    const r = this.rng.next();
    if (r < 0.3 && this.focus.length) return this.rng.pick(this.focus);
    if (r < 0.82) return this.v.noun.sample(this.rng);
    return this.v.general.sample(this.rng);
  }
  verb() {
    return this.v.verb.sample(this.rng);
  }
  adj() {
    return this.v.adjective.sample(this.rng);
  }
  adv() {
    return this.v.adverb.sample(this.rng);
  }
  prep() {
    return this.v.preposition.sample(this.rng);
  }
  name() {
    return cap(this.v.name.sample(this.rng));
  }
  ident() {
    const verb = this.verb();
    const noun = this.noun();
    const form = this.rng.next();
    if (form < 0.6) return verb + cap(noun);
    if (form < 0.8) return `${verb}_${noun}`;
    return `${noun}.${verb}${cap(this.noun())}`;
  }
  number() {
    return String(this.rng.pick([2, 3, 4, 5, 8, 10, 16, 30, 32, 50, 64, 100, 128, 250, 500, 512, 1000, 4096]));
  }
  /** A noun phrase; `plural` forces number agreement when the caller needs it. */
  np(pluralForm = this.rng.chance(0.3)) {
    const rng = this.rng;
    const head = pluralForm ? plural(this.noun()) : this.noun();
    let core = rng.chance(0.25) ? `${this.noun()} ${head}` : head;
    if (rng.chance(0.35)) core = `${this.adj()} ${core}`;
    if (rng.chance(0.05)) core = `${this.name()} ${core}`;
    if (pluralForm) return `${rng.pick(["the", "all", "some", "many", "most", "these", "few", "the", "the"])} ${core}`;
    const det = rng.pick(["the", "the", "the", "a", "each", "every", "this", "that", "one", "no"]);
    return det === "a" ? `${article(core)} ${core}` : `${det} ${core}`;
  }
  pp() {
    return `${this.prep()} ${this.np()}`;
  }
  /** Subject + verb with agreement. */
  clause() {
    const pluralSubject = this.rng.chance(0.35);
    const subject = this.np(pluralSubject);
    const verb = this.verb();
    const vp = pluralSubject ? verb : third(verb);
    const object = this.rng.chance(0.85) ? ` ${this.np()}` : "";
    return `${subject} ${vp}${object}`;
  }
  sentence() {
    const rng = this.rng;
    const t = rng.int(0, 19);
    switch (t) {
      case 0:
        return `${cap(this.clause())} ${this.pp()}.`;
      case 1:
        return `When ${this.clause()}, ${this.clause()}.`;
      case 2:
        return `${cap(this.clause())}, so ${this.clause()}.`;
      case 3:
        return `${cap(this.clause())} because ${this.clause()}.`;
      case 4:
        return `If ${this.np(false)} ${third(this.verb())} ${this.np()}, ${this.clause()} ${this.adv()}.`;
      case 5:
        return `${cap(this.np(false))} is ${this.adj()} ${this.pp()}, which ${third(this.verb())} ${this.np()}.`;
      case 6:
        return `${cap(this.adv())}, ${this.clause()} ${this.pp()}.`;
      case 7:
        return `The \`${this.ident()}\` call ${third(this.verb())} ${this.np()} and ${third(this.verb())} ${this.np()}.`;
      case 8:
        return `${cap(this.np(true))} are ${pastParticiple(this.verb())} ${this.pp()} before ${this.clause()}.`;
      case 9:
        return `We ${this.verb()} ${this.np()} ${this.pp()} rather than ${gerund(this.verb())} ${this.np()}.`;
      case 10:
        return `${cap(this.np(false))} ${third(this.verb())} at most ${this.number()} ${plural(this.noun())} ${this.pp()}.`;
      case 11:
        return `Never ${this.verb()} ${this.np()} while ${this.clause()}.`;
      case 12:
        return `${cap(gerund(this.verb()))} ${this.np()} ${this.adv()} ${third(this.verb())} ${this.np()}.`;
      case 13:
        return `This matters because ${this.clause()} ${this.pp()}.`;
      case 14:
        return `${cap(this.clause())}; ${this.clause()} ${this.adv()}.`;
      case 15:
        return `The ${this.name()} ${this.noun()} ${third(this.verb())} ${this.np()} every ${this.number()} ${plural(rng.pick(["second", "minute", "request", "run", "page", "batch"]))}.`;
      case 16:
        return `${cap(this.np())} can be ${pastParticiple(this.verb())}, but only ${this.pp()}.`;
      case 17:
        return `After ${this.clause()}, ${this.np(false)} ${this.adv()} ${third(this.verb())} ${this.np()} ${this.pp()}.`;
      case 18:
        return `In practice ${this.clause()} and ${this.clause()}.`;
      default:
        return `${cap(this.clause())}.`;
    }
  }
  imperative() {
    return `${cap(this.verb())} ${this.np()} ${this.pp()}.`;
  }
}

const NOUN_SET = new Set([...DOMAIN_NOUNS, ...GENERAL_NOUNS]);
/** Keeps the words that are (or singularise to) known nouns, so inflection stays sane. */
function focusNouns(list) {
  const out = new Set();
  for (const w of list) {
    const candidates = [w, w.replace(/ies$/, "y"), w.replace(/es$/, ""), w.replace(/s$/, "")];
    const hit = candidates.find((c) => NOUN_SET.has(c));
    if (hit) out.add(hit);
  }
  return [...out];
}

/** Whitespace-separated tokens (markup included), counted without allocating. */
function countWords(text) {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = c === 32 || c === 10 || c === 9 || c === 13;
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}

// ---------------------------------------------------------------------------
// Topics DAG (parents always listed before children, so there are no cycles)

const ROOT_TOPICS = words(`
concepts storage security operations performance reliability interfaces data-model tooling
testing workflow observability concurrency
`);
const MID_TOPICS = [
  ["indexing", "storage performance"],
  ["search", "interfaces indexing"],
  ["migrations", "storage operations"],
  ["schema", "data-model storage"],
  ["transactions", "storage reliability"],
  ["locking", "reliability concurrency"],
  ["caching", "performance storage"],
  ["cache-invalidation", "caching"],
  ["queues", "workflow reliability"],
  ["retries", "reliability queues"],
  ["scheduling", "workflow"],
  ["workers", "queues concurrency"],
  ["leases", "locking workers"],
  ["auth", "security"],
  ["sessions", "auth"],
  ["tokens", "auth"],
  ["permissions", "security auth"],
  ["secrets", "security operations"],
  ["encryption", "security"],
  ["cli", "interfaces tooling"],
  ["http-api", "interfaces"],
  ["webhooks", "http-api workflow"],
  ["config", "operations tooling"],
  ["logging", "observability"],
  ["metrics", "observability performance"],
  ["tracing", "observability"],
  ["alerting", "observability operations"],
  ["deployment", "operations"],
  ["rollouts", "deployment reliability"],
  ["backups", "storage reliability"],
  ["replication", "storage reliability"],
  ["sharding", "storage performance"],
  ["serialization", "data-model"],
  ["validation", "data-model reliability"],
  ["parsing", "data-model tooling"],
  ["markdown", "parsing"],
  ["links", "markdown data-model"],
  ["topics-graph", "data-model"],
  ["versioning", "workflow tooling"],
  ["git-integration", "tooling versioning"],
  ["build-system", "tooling"],
  ["dependencies", "tooling security"],
  ["unit-tests", "testing"],
  ["integration-tests", "testing"],
  ["benchmarks", "testing performance"],
  ["fixtures", "testing"],
  ["error-handling", "reliability interfaces"],
  ["process-management", "concurrency operations"],
  ["agents", "workflow interfaces"],
  ["prompts", "agents"],
  ["rate-limiting", "performance security"],
  ["incidents", "operations reliability"],
  ["onboarding", "concepts workflow"],
  ["file-watching", "tooling concurrency"],
  ["pagination", "http-api performance"],
];
const TOPIC_ASPECTS = [
  ["internals", null],
  ["failures", "incidents"],
  ["limits", "rate-limiting"],
  ["metrics", "metrics"],
  ["testing", "unit-tests"],
  ["security", "security"],
  ["performance", "performance"],
  ["configuration", "config"],
  ["design", "concepts"],
  ["migration", "migrations"],
  ["recovery", "reliability"],
  ["edge-cases", "validation"],
];

function buildTopics(rng, prose, count) {
  const topics = [];
  for (const slug of ROOT_TOPICS) topics.push({ slug, parents: [] });
  for (const [slug, parents] of MID_TOPICS) topics.push({ slug, parents: parents.split(" ") });
  const known = new Set(topics.map((t) => t.slug));
  const mids = MID_TOPICS.map(([slug]) => slug);
  let guard = 0;
  while (topics.length < count && guard++ < 10_000) {
    const mid = rng.pick(mids);
    const [aspect, extra] = rng.pick(TOPIC_ASPECTS);
    const slug = `${mid}-${aspect}`;
    if (known.has(slug)) continue;
    known.add(slug);
    const parents = [mid];
    if (extra && extra !== mid && !parents.includes(extra)) parents.push(extra);
    topics.push({ slug, parents });
  }
  const chosen = topics.slice(0, count);
  for (const t of chosen) {
    t.title = titleCase(t.slug);
    prose.setFocus(focusNouns(t.slug.split("-")));
    t.description = `${cap(prose.np(false))} ${third(prose.verb())} ${prose.np()} ${prose.pp()}.`;
  }
  return chosen;
}

function renderTopicsYaml(topics) {
  let out = "# Topic DAG for the synthetic benchmark wiki. Generated; do not edit.\ntopics:\n";
  for (const t of topics) {
    out += `  - slug: ${t.slug}\n`;
    out += `    title: ${JSON.stringify(t.title)}\n`;
    out += `    description: ${JSON.stringify(t.description)}\n`;
    out += `    parents: [${t.parents.join(", ")}]\n`;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Layout

const CATEGORY_SHARES = [
  ["architecture", 0.38],
  ["concepts", 0.18],
  ["guides", 0.16],
  ["decisions", 0.14],
  ["reference", 0.14],
];
const SUBSYSTEM_NAMES = words(`
queue cache auth indexing storage search scheduler sync http-api cli config runs wiki viewer
harnesses lifecycle repositories telemetry billing notifications webhooks uploads exports
imports permissions sessions tokens migrations replication backups workers pipelines ingest
gardening parser renderer plugins registry deploy networking gateway rate-limits audit secrets
metrics tracing logging alerts release packaging onboarding accounts tenants feature-flags
experiments analytics reporting storage-engine query-planner compaction snapshots events
streams scheduling retention archive
`);
const AREA_NAMES = words(`
internals protocol recovery operations testing performance data api lifecycle failure-modes
edge-cases tooling legacy security schema adapters clients servers batching caching
concurrency observability rollout limits formats encoding routing persistence
`);
const FLAT_MAX = 60;
const MIN_WORDS = 300;
const MAX_WORDS = 800;
const FOLDER_TARGET = 45;

function splitCounts(rng, total, parts) {
  const weights = Array.from({ length: parts }, () => 0.5 + rng.next());
  const sum = weights.reduce((a, b) => a + b, 0);
  const counts = weights.map((w) => Math.floor((w / sum) * total));
  let rest = total - counts.reduce((a, b) => a + b, 0);
  for (let i = 0; rest > 0; i = (i + 1) % parts, rest--) counts[i]++;
  return counts;
}

function planLayout(rng, total) {
  /** @type {{dir: string, file: string, landing: boolean, category: string}[]} */
  const pages = [];
  const folders = new Map(); // dir -> { names: Set, subdirs: [] }
  const folder = (dir) => {
    let f = folders.get(dir);
    if (!f) folders.set(dir, (f = { names: new Set(), subdirs: [], category: "" }));
    return f;
  };
  folder("");
  pages.push({ dir: "", file: "README.md", landing: true, category: "root" });
  folder("").names.add("readme");
  let remaining = total - 1;
  if (remaining > 0) {
    pages.push({ dir: "", file: "getting-started.md", landing: false, category: "root" });
    folder("").names.add("getting-started");
    remaining--;
  }
  // Largest-remainder split over the five page-type folders.
  const raw = CATEGORY_SHARES.map(([name, share]) => [name, remaining * share]);
  const counts = raw.map(([name, x]) => [name, Math.floor(x), x - Math.floor(x)]);
  let rest = remaining - counts.reduce((a, c) => a + c[1], 0);
  const order = [...counts].sort((a, b) => b[2] - a[2]);
  for (let i = 0; rest > 0; i = (i + 1) % order.length, rest--) order[i][1]++;

  const addFlat = (dir, count, category) => {
    for (let i = 0; i < count; i++) pages.push({ dir, file: "", landing: false, category });
  };
  const planFolder = (dir, count, depth, category, namePool) => {
    const f = folder(dir);
    f.category = category;
    if (count <= 0) return;
    // Top-level page-type folders always have a landing page; deeper ones mostly do.
    if (depth === 1 || rng.chance(0.7)) {
      pages.push({ dir, file: "README.md", landing: true, category });
      count--;
    }
    if (count <= 0) return;
    const forceSplit = category === "architecture" && depth === 1 && count > 8;
    if ((count <= FLAT_MAX && !forceSplit) || depth >= 3) {
      addFlat(dir, count, category);
      return;
    }
    const flatShare = forceSplit && count <= FLAT_MAX ? rng.int(1, 3) : Math.round(count * (0.08 + rng.next() * 0.12));
    const nested = count - flatShare;
    const pool = rng.shuffle([...namePool]);
    const parts = Math.max(2, Math.min(pool.length, Math.ceil(nested / FOLDER_TARGET)));
    const split = splitCounts(rng, nested, parts);
    addFlat(dir, flatShare, category);
    for (let i = 0; i < parts; i++) {
      const name = pool[i];
      f.names.add(name);
      const child = dir ? `${dir}/${name}` : name;
      f.subdirs.push(child);
      planFolder(child, split[i], depth + 1, category, AREA_NAMES);
    }
  };
  for (const [name, count] of counts) {
    if (count <= 0) continue;
    folder("").names.add(name);
    folder("").subdirs.push(name);
    planFolder(name, count, 1, name, name === "architecture" ? SUBSYSTEM_NAMES : [...SUBSYSTEM_NAMES, ...AREA_NAMES]);
  }
  return { pages, folders };
}

function pageName(rng, prose, category, taken) {
  for (let attempt = 0; attempt < 30; attempt++) {
    let parts;
    const r = rng.next();
    switch (category) {
      case "concepts":
        parts = r < 0.4 ? [prose.noun()] : r < 0.8 ? [prose.adj(), prose.noun()] : [prose.noun(), prose.noun()];
        break;
      case "guides":
        parts = r < 0.6 ? [prose.verb(), prose.noun()] : [prose.verb(), prose.adj(), plural(prose.noun())];
        break;
      case "decisions":
        parts = [rng.pick(["use", "adopt", "prefer", "drop", "keep", "replace", "split", "defer"]), prose.noun()];
        if (r < 0.5) parts.push(rng.pick(["for", "over", "in", "per"]), prose.noun());
        break;
      case "reference":
        parts = [prose.noun(), rng.pick(["schema", "options", "api", "cli", "errors", "config", "format", "events", "flags", "fields"])];
        if (r < 0.3) parts.unshift(prose.noun());
        break;
      default:
        parts = r < 0.5 ? [prose.noun(), prose.noun()] : r < 0.8 ? [prose.noun(), prose.noun(), rng.pick(["flow", "model", "lifecycle", "store", "protocol", "layout"])] : [prose.adj(), prose.noun()];
    }
    const name = parts
      .join("-")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "");
    if (name && name !== "readme" && name !== "manual" && name !== "jobs" && !taken.has(name)) return name;
  }
  let i = 2;
  const base = `${prose.noun()}-${prose.noun()}`;
  while (taken.has(`${base}-${i}`)) i++;
  return `${base}-${i}`;
}

// ---------------------------------------------------------------------------
// Source files under <root>/src

const SRC_MODULES = {
  queue: words("worker lease-store enqueue claim backoff"),
  cache: words("lru-cache invalidation warmup"),
  auth: words("session token-store oauth permissions"),
  index: words("refresh signature sections fts-schema"),
  storage: words("sqlite migrations wal-mode"),
  search: words("query-parser ranking excerpts"),
  cli: words("main commands render exit-codes"),
  config: words("load-config defaults env"),
  sync: words("watcher debounce"),
  http: words("router middleware rate-limit"),
  runs: words("ledger executor timeouts"),
  wiki: words("frontmatter links topics-yaml"),
};

function buildSourceFiles(rng, prose) {
  const files = [];
  for (const [dir, names] of Object.entries(SRC_MODULES)) {
    for (const name of names) {
      const ident = name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
      const lines = [
        `// src/${dir}/${name}.ts — synthetic fixture for the CodeAlmanac benchmark.`,
        `// ${prose.sentence()}`,
        `export interface ${cap(ident)}Options {`,
        `  limit: number;`,
        `  ${prose.noun()}${cap(prose.noun())}?: string;`,
        `}`,
        ``,
        `export function ${ident}(options: ${cap(ident)}Options): number {`,
        `  // ${prose.sentence()}`,
        `  return Math.min(options.limit, ${prose.number()});`,
        `}`,
        ``,
      ];
      files.push({ path: `src/${dir}/${name}.ts`, content: lines.join("\n") });
    }
  }
  return files;
}

// ---------------------------------------------------------------------------
// Page bodies

const HEADINGS = {
  decisions: ["Context", "Decision", "Consequences", "Alternatives considered", "Status"],
  guides: ["Prerequisites", "Steps", "Verify the result", "Troubleshooting", "Cleaning up"],
  reference: ["Fields", "Defaults", "Errors", "Examples", "Compatibility"],
  concepts: ["Definition", "Why it matters", "Common mistakes", "Related ideas"],
  architecture: ["Overview", "Data flow", "Invariants", "Failure modes", "Operational notes"],
  generic: ["Background", "Trade-offs", "Open questions", "Testing", "Configuration", "Performance", "History"],
};

function heading(rng, prose, category, used) {
  for (let i = 0; i < 10; i++) {
    const r = rng.next();
    let h;
    if (r < 0.35) h = rng.pick(HEADINGS[category] ?? HEADINGS.architecture);
    else if (r < 0.5) h = rng.pick(HEADINGS.generic);
    else if (r < 0.65) h = `${cap(gerund(prose.verb()))} ${plural(prose.noun())}`;
    else if (r < 0.8) h = `When ${plural(prose.noun())} ${prose.verb()}`;
    else if (r < 0.9) h = `The ${prose.adj()} ${prose.noun()}`;
    else h = `How the ${prose.noun()} ${third(prose.verb())} ${plural(prose.noun())}`;
    if (!used.has(h)) {
      used.add(h);
      return h;
    }
  }
  return `${cap(prose.adj())} ${prose.noun()} notes`;
}

function codeBlock(rng, prose) {
  const lang = rng.pick(["ts", "ts", "sql", "bash", "yaml", "json"]);
  const id = prose.ident().replace(/[^A-Za-z0-9_]/g, "_");
  const noun = prose.noun().replace(/[^a-z]/g, "_");
  let body;
  switch (lang) {
    case "sql":
      body = `SELECT ${noun}_id, status\nFROM ${plural(noun)}\nWHERE status = 'pending'\nORDER BY seq\nLIMIT ${prose.number()};`;
      break;
    case "bash":
      body = `ca search "${prose.noun()} ${prose.noun()}" --limit ${prose.number()}\nca show ${prose.noun()}-${prose.noun()} --json | jq .title`;
      break;
    case "yaml":
      body = `${noun}:\n  enabled: true\n  limit: ${prose.number()}\n  mode: ${prose.adj()}`;
      break;
    case "json":
      body = `{\n  "${noun}": "${prose.adj()}",\n  "limit": ${prose.number()},\n  "retry": ${rng.chance(0.5)}\n}`;
      break;
    default:
      body = `export async function ${id}(${noun}: ${cap(noun.replace(/_/g, ""))}): Promise<number> {\n  const lease = await claim(${noun}, { timeoutMs: ${prose.number()} });\n  // ${prose.sentence()}\n  return lease.release();\n}`;
  }
  return `\`\`\`${lang}\n${body}\n\`\`\``;
}

/**
 * Builds the body as a list of blocks, fills it to roughly `targetWords`, then weaves
 * in citations and links. Blocks: {kind: "h"|"p"|"ul"|"ol"|"code", ...}; prose blocks
 * keep `wc`, the token count of each item, so the length is tracked without recounting.
 */
function buildBody(rng, prose, page, targetWords, citeIds, links, shape = SHAPES.heavy) {
  const blocks = [];
  let total = 0; // whitespace-separated tokens of the serialized body, markup included
  const fixed = (kind, text) => {
    blocks.push({ kind, text });
    total += countWords(text);
  };
  const addParagraph = (sentences) => {
    const items = [];
    const wc = [];
    for (let i = 0; i < sentences; i++) {
      const s = page.category === "guides" && rng.chance(0.25) ? prose.imperative() : prose.sentence();
      const n = countWords(s);
      total += n;
      items.push(s);
      wc.push(n);
    }
    blocks.push({ kind: "p", items, wc });
  };
  fixed("h", `# ${page.title}`);
  const lead = `${page.title} ${rng.pick(["explains how", "describes how", "records why", "covers how"])} ${prose.clause()}.`;
  blocks.push({ kind: "p", items: [lead], wc: [countWords(lead)] });
  total += countWords(lead);
  addParagraph(rng.int(1, 3));

  const sections = rng.int(...shape.sections);
  const usedHeadings = new Set();
  const perSection = Math.max(40, (targetWords - total) / sections);
  for (let s = 0; s < sections; s++) {
    const level = s > 0 && rng.chance(0.3) ? "###" : "##";
    fixed("h", `${level} ${heading(rng, prose, page.category, usedHeadings)}`);
    const goal = s === sections - 1 ? targetWords : total + perSection;
    let extras = 0;
    while (total < goal - 8) {
      const r = rng.next();
      if (extras < 1 && r < 0.12) {
        fixed("code", codeBlock(rng, prose));
        extras++;
      } else if (extras < 1 && r < 0.25) {
        const ordered = page.category === "guides" && rng.chance(0.6);
        const items = [];
        const wc = [];
        for (let i = rng.int(3, 5); i > 0; i--) {
          const item = ordered || rng.chance(0.4) ? prose.imperative() : rng.chance(0.3) ? `\`${prose.ident()}\`: ${prose.sentence()}` : prose.sentence();
          const n = countWords(item) + 1; // "- " or "1. " marker
          total += n;
          items.push(item);
          wc.push(n);
        }
        blocks.push({ kind: ordered ? "ol" : "ul", items, wc });
        extras++;
      } else {
        addParagraph(Math.min(rng.int(2, 6), Math.max(1, Math.round((goal - total) / 14))));
      }
    }
  }

  // Weave citations into prose sentences (paragraphs and list items, never code/headings).
  const prosey = blocks.filter((b) => b.kind === "p" || b.kind === "ul" || b.kind === "ol");
  const cite = (id) => {
    const block = rng.pick(prosey);
    const i = rng.int(0, block.items.length - 1);
    block.items[i] = block.items[i].slice(0, -1) + ` [@${id}].`; // every item ends with "."
    block.wc[i] += 1;
    total += 1;
  };
  for (const id of citeIds) {
    cite(id);
    if (rng.chance(0.25)) cite(id);
  }
  // Weave links in as extra sentences or list items.
  for (const link of links) {
    const md = `[${link.text}](${link.href})`;
    const block = rng.pick(prosey);
    let text;
    if (block.kind !== "p") {
      text = `${md}: ${prose.sentence()}`;
    } else {
      switch (rng.int(0, 4)) {
        case 0:
          text = `See ${md} for the ${prose.noun()} details.`;
          break;
        case 1:
          text = `This builds on ${md}.`;
          break;
        case 2:
          text = `${cap(prose.clause())}, as described in ${md}.`;
          break;
        case 3:
          text = `The ${md} page ${third(prose.verb())} ${prose.np()}.`;
          break;
        default:
          text = `${cap(prose.np(false))} is covered in ${md}.`;
      }
    }
    const n = countWords(text) + (block.kind === "p" ? 0 : 1);
    const at = rng.int(0, block.items.length);
    block.items.splice(at, 0, text);
    block.wc.splice(at, 0, n);
    total += n;
  }

  // Keep the whole body (markup included) within MIN_WORDS..MAX_WORDS.
  const paragraphs = blocks.filter((b) => b.kind === "p");
  const last = paragraphs[paragraphs.length - 1];
  while (total < MIN_WORDS) {
    const sentence = prose.sentence();
    const n = countWords(sentence);
    last.items.push(sentence);
    last.wc.push(n);
    total += n;
  }
  for (let i = paragraphs.length - 1; total > MAX_WORDS && i > 1; i--) {
    const { items, wc } = paragraphs[i];
    for (let j = items.length - 1; j >= 1 && total > MAX_WORDS; j--) {
      if (items[j].includes("[@") || items[j].includes("](")) continue;
      total -= wc[j];
      items.splice(j, 1);
      wc.splice(j, 1);
    }
  }

  let out = "";
  for (const b of blocks) {
    if (out) out += "\n\n";
    if (b.kind === "h" || b.kind === "code") out += b.text;
    else if (b.kind === "p") out += b.items.join(" ");
    else if (b.kind === "ul") out += b.items.map((x) => `- ${x}`).join("\n");
    else out += b.items.map((x, i) => `${i + 1}. ${x}`).join("\n");
  }
  return out + "\n";
}

function sourcesFor(rng, prose, srcFiles, shape = SHAPES.heavy) {
  const count = rng.int(...shape.sources);
  const ids = new Set();
  const list = [];
  const unique = (base) => {
    let id = base;
    for (let i = 2; ids.has(id); i++) id = `${base}-${i}`;
    ids.add(id);
    return id;
  };
  for (let i = 0; i < count; i++) {
    const r = rng.next();
    if (r < 0.5) {
      const q = rng.next();
      let path;
      if (q < 0.85) path = rng.pick(srcFiles).path;
      else if (q < 0.9) path = `src/${rng.pick(Object.keys(SRC_MODULES))}/`;
      else path = `src/${rng.pick(Object.keys(SRC_MODULES))}/legacy-${prose.noun().replace(/[^a-z]/g, "")}.ts`;
      const base = path.replace(/^src\//, "").replace(/\.ts$/, "").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
      list.push({ id: unique(base), type: "file", path });
    } else if (r < 0.7) {
      const slugA = prose.noun().replace(/[^a-z]/g, "");
      const slugB = prose.noun().replace(/[^a-z]/g, "");
      list.push({
        id: unique(`${slugA}-docs`),
        type: "web",
        url: `https://docs.example.org/${slugA}/${slugB}`,
        title: `${titleWord(slugA)} ${titleWord(slugB)} documentation`,
      });
    } else if (r < 0.87) {
      const sha = rng.hex(40);
      list.push({ id: unique(`commit-${sha.slice(0, 7)}`), type: "commit", commit: sha, note: prose.sentence() });
    } else {
      const number = rng.int(10, 4800);
      list.push({ id: unique(`pr-${number}`), type: "pr", pr: number });
    }
  }
  return list;
}

function renderFrontMatter(page) {
  let out = "---\n";
  out += `title: ${JSON.stringify(page.title)}\n`;
  out += `summary: ${JSON.stringify(page.summary)}\n`;
  out += `topics: [${page.topics.join(", ")}]\n`;
  out += "sources:\n";
  for (const s of page.sources) {
    out += `  - id: ${s.id}\n    type: ${s.type}\n`;
    if (s.type === "file") out += `    path: ${s.path}\n`;
    if (s.type === "web") out += `    url: ${s.url}\n    title: ${JSON.stringify(s.title)}\n`;
    if (s.type === "commit") out += `    commit: ${JSON.stringify(s.commit)}\n    note: ${JSON.stringify(s.note)}\n`;
    if (s.type === "pr") out += `    pr: ${s.pr}\n`;
  }
  out += "---\n\n";
  return out;
}

/** The route a link resolves to: a page's slug, or the folder for a landing README. */
const routeOf = (p) => (p.landing ? p.dir : p.dir ? `${p.dir}/${p.file.slice(0, -3)}` : p.file.slice(0, -3));

function linkHref(rng, from, to) {
  const rel = posix.relative(`/${from.dir}`, `/${routeOf(to)}`);
  if (!rel || rel.split("/").every((s) => s === "..")) return null; // self or ancestor folder
  if (to.landing) return rng.chance(0.5) ? `${rel}/` : rel;
  return rng.chance(0.3) ? `${rel}.md` : rel;
}

// ---------------------------------------------------------------------------
// Shapes and the broad query

/**
 * How much each page holds. `heavy` is the default because benchmarks must use wikis at
 * least as heavy as real ones: a real 10,000-page wiki measured 52 MB, pages of a few
 * kilobytes with many sections, links, citations and sources, and common words on most
 * pages. `light` is the earlier, lighter shape, kept for comparisons.
 */
export const SHAPES = {
  heavy: { words: [520, 1100], sections: [4, 9], links: [4, 12], sources: [2, 6] },
  light: { words: [260, 650], sections: [2, 5], links: [2, 8], sources: [1, 4] },
};

const WORD = /[a-z]+/g;

function countDocumentWords(frequency, body) {
  for (const word of new Set(body.toLowerCase().match(WORD) ?? [])) {
    if (word.length >= 4) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  }
}

/**
 * Two domain nouns found on most pages, as agents ask them: the two most frequent that are
 * each on at most three pages in four, so that together they match about nine in ten.
 */
function broadQuery(frequency, pages) {
  const nouns = new Set(DOMAIN_NOUNS);
  const ranked = [...frequency].filter(([w, n]) => nouns.has(w) && n <= 0.75 * pages).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const pair = ranked.slice(0, 2);
  return { query: pair.map(([w]) => w).join(" "), pages: pair.map(([, n]) => n) };
}

// ---------------------------------------------------------------------------
// Main entry

/**
 * Generates the wiki and returns a summary plus what a benchmark needs to know.
 * @param {{root: string, pages: number, seed?: number, force?: boolean}} options
 */
export function generateWiki({ root, pages, seed = 42, force = false, shape: shapeName = "heavy" }) {
  const started = process.hrtime.bigint();
  if (!Number.isInteger(pages) || pages < 1) throw new Error(`pages must be a positive integer, got ${pages}`);
  const shape = SHAPES[shapeName];
  if (!shape) throw new Error(`shape must be one of ${Object.keys(SHAPES).join(", ")}, got ${shapeName}`);
  const documentFrequency = new Map();
  root = resolve(root);
  const almanac = join(root, "almanac");
  if (existsSync(almanac)) {
    if (!force) throw new Error(`${almanac} already exists (pass force: true / --force to replace it)`);
    rmSync(almanac, { recursive: true, force: true });
  }

  const rng = new Rng(seed);
  const vocab = buildVocabulary(rng);
  const prose = new Prose(rng, vocab);
  const topicCount = Math.max(1, Math.min(2 * pages, 120, 70 + Math.floor(pages / 250)));
  const topics = buildTopics(rng, prose, topicCount);
  const srcFiles = buildSourceFiles(rng, prose);
  const { pages: plan, folders } = planLayout(rng, pages);

  // Names, titles and per-folder lists.
  const byDir = new Map();
  for (const p of plan) {
    const f = folders.get(p.dir);
    if (!p.landing && p.file !== "getting-started.md") {
      const name = pageName(rng, prose, p.category, f.names);
      f.names.add(name);
      p.file = `${name}.md`;
    }
    const nameWords = p.landing
      ? p.dir
        ? p.dir.split("/").pop().split("-")
        : ["engineering", "wiki"]
      : p.file.slice(0, -3).split("-");
    p.title = p.landing && p.dir ? `${nameWords.map(titleWord).join(" ")} overview` : nameWords.map(titleWord).join(" ");
    p.route = routeOf(p);
    p.rel = p.dir ? `${p.dir}/${p.file}` : p.file;
    p.titleWords = nameWords;
    if (!byDir.has(p.dir)) byDir.set(p.dir, []);
    byDir.get(p.dir).push(p);
  }
  // Layout planning appends folder pages in nested order; give each page a stable index.
  plan.forEach((p, i) => (p.index = i));

  // Topics: every topic is used at least once, then 1–4 per page.
  const homeTopic = new Map();
  for (const dir of folders.keys()) homeTopic.set(dir, rng.pick(topics).slug);
  const topicZipf = new Zipf(rng.shuffle(topics.map((t) => t.slug)), 0.8);
  for (const p of plan) p.topics = [];
  const order = rng.shuffle(plan.map((_, i) => i));
  topics.forEach((t, i) => plan[order[i % plan.length]].topics.push(t.slug));
  for (const p of plan) {
    const want = Math.max(p.topics.length, rng.int(1, 4));
    let guard = 0;
    while (p.topics.length < want && guard++ < 20) {
      const t = rng.chance(0.5) ? homeTopic.get(p.dir) : topicZipf.sample(rng);
      if (!p.topics.includes(t)) p.topics.push(t);
    }
  }

  const landings = plan.filter((p) => p.landing && p.dir);
  const linkable = plan.filter((p) => !(p.landing && !p.dir)); // never link the root README

  mkdirSync(almanac, { recursive: true });
  const made = new Set([almanac]);
  const write = (relPath, content) => {
    const full = join(root, relPath);
    const dir = full.slice(0, full.lastIndexOf("/"));
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    writeFileSync(full, content);
    return Buffer.byteLength(content);
  };
  let bytes = 0;
  for (const f of srcFiles) bytes += write(f.path, f.content);
  bytes += write("almanac/topics.yaml", renderTopicsYaml(topics));

  for (const p of plan) {
    prose.setFocus(focusNouns([...p.titleWords, ...p.topics.flatMap((t) => t.split("-"))]));
    p.summary = `${cap(p.category === "decisions" ? `why we ${prose.verb()} ${prose.np()}` : prose.clause())} ${prose.pp()}.`;
    p.sources = sourcesFor(rng, prose, srcFiles, shape);

    // 2–8 links to other existing pages.
    const wantLinks = rng.int(...shape.links);
    const links = [];
    const seen = new Set([p.route]);
    const siblings = byDir.get(p.dir);
    const subdirs = folders.get(p.dir)?.subdirs ?? [];
    const childLandings = p.landing ? subdirs.map((d) => byDir.get(d)?.find((x) => x.landing)).filter(Boolean) : [];
    for (let attempt = 0; links.length < wantLinks && attempt < wantLinks * 6; attempt++) {
      const r = rng.next();
      let target;
      if (childLandings.length && r < 0.3) target = rng.pick(childLandings);
      else if (r < 0.4 && siblings.length > 1) target = rng.pick(siblings);
      else if (r < 0.55 && landings.length) target = rng.pick(landings);
      else if (linkable.length) target = rng.pick(linkable);
      if (!target || seen.has(target.route) || (target.landing && !target.dir)) continue;
      const href = linkHref(rng, p, target);
      if (!href) continue;
      seen.add(target.route);
      links.push({ href, text: target.title, target: target.route });
    }
    p.links = links.map((l) => l.target);

    const targetWords = rng.int(...shape.words);
    const body = buildBody(
      rng,
      prose,
      p,
      targetWords,
      p.sources.map((s) => s.id),
      links,
      shape,
    );
    countDocumentWords(documentFrequency, body);
    bytes += write(`almanac/${p.rel}`, renderFrontMatter(p) + body);
  }

  // A suggested two-word query: the title words of a mid-wiki ordinary page.
  const probe = plan.find((p, i) => i >= Math.floor(plan.length / 2) && !p.landing && p.titleWords.length >= 2) ?? plan[0];
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const broad = broadQuery(documentFrequency, plan.length);
  return {
    root,
    seed,
    shape: shapeName,
    broadQuery: broad.query,
    broadQueryPages: broad.pages,
    pages: plan.length,
    topics: topics.length,
    srcFiles: srcFiles.length,
    bytes,
    ms: Math.round(ms),
    query: probe.titleWords.slice(0, 2).join(" "),
    narrowQuery: probe.titleWords.slice(0, 2).join(" "),
    showSlug: probe.route || "README",
    pageFiles: plan.map((p) => `almanac/${p.rel}`),
    slugs: plan.map((p) => p.route || "README"),
  };
}

// ---------------------------------------------------------------------------
// CLI

function parseArgs(argv) {
  const opts = { seed: 42, force: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === "--pages") opts.pages = Number(value());
    else if (arg === "--out") opts.root = value();
    else if (arg === "--seed") opts.seed = Number(value());
    else if (arg === "--shape") opts.shape = value();
    else if (arg === "--force") opts.force = true;
    else if (arg === "--help" || arg === "-h") opts.help = true;
    else throw new Error(`unknown argument: ${arg}`);
  }
  return opts;
}

function isMain() {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  try {
    const opts = parseArgs(process.argv.slice(2));
    if (opts.help || !opts.root || !opts.pages) {
      process.stderr.write("usage: node bench/generate-wiki.mjs --pages N --out DIR [--seed 42] [--shape heavy|light] [--force]\n");
      process.exit(opts.help ? 0 : 2);
    }
    if (!Number.isInteger(opts.seed)) throw new Error("--seed must be an integer");
    const result = generateWiki(opts);
    process.stdout.write(
      JSON.stringify({ pages: result.pages, topics: result.topics, bytes: result.bytes, ms: result.ms, seed: result.seed, root: result.root, shape: result.shape, query: result.query, broad_query: result.broadQuery, broad_query_pages: result.broadQueryPages, show: result.showSlug }) + "\n",
    );
  } catch (error) {
    process.stderr.write(`generate-wiki: ${error.message}\n`);
    process.exit(1);
  }
}
