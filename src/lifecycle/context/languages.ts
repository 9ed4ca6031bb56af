import { basename } from "node:path";

/**
 * File counts by language, so the build agent sees what the repository is made of before
 * reading any of it. Names come from extensions (and a few well-known file names); an
 * unknown extension is reported as itself.
 */
export interface LanguageCount {
  language: string;
  files: number;
  extensions: string[];
}

const BY_EXTENSION: Record<string, string> = {
  ts: "TypeScript", tsx: "TypeScript", mts: "TypeScript", cts: "TypeScript",
  js: "JavaScript", jsx: "JavaScript", mjs: "JavaScript", cjs: "JavaScript",
  py: "Python", pyi: "Python", ipynb: "Jupyter Notebook",
  go: "Go", rs: "Rust", java: "Java", kt: "Kotlin", kts: "Kotlin", scala: "Scala", groovy: "Groovy",
  rb: "Ruby", php: "PHP", cs: "C#", fs: "F#", swift: "Swift", m: "Objective-C", mm: "Objective-C++",
  c: "C", h: "C/C++ header", cc: "C++", cpp: "C++", cxx: "C++", hpp: "C++", hh: "C++",
  dart: "Dart", ex: "Elixir", exs: "Elixir", erl: "Erlang", hs: "Haskell", ml: "OCaml", clj: "Clojure",
  lua: "Lua", r: "R", jl: "Julia", zig: "Zig", nim: "Nim", pl: "Perl", sol: "Solidity",
  sh: "Shell", bash: "Shell", zsh: "Shell", fish: "Shell", ps1: "PowerShell", bat: "Batch",
  sql: "SQL", proto: "Protocol Buffers", graphql: "GraphQL", gql: "GraphQL", tf: "Terraform", hcl: "HCL", nix: "Nix",
  html: "HTML", htm: "HTML", css: "CSS", scss: "SCSS", sass: "Sass", less: "Less", vue: "Vue", svelte: "Svelte", astro: "Astro",
  md: "Markdown", mdx: "MDX", rst: "reStructuredText", adoc: "AsciiDoc", txt: "Text",
  json: "JSON", jsonc: "JSON", jsonl: "JSON Lines", ndjson: "JSON Lines",
  yaml: "YAML", yml: "YAML", toml: "TOML", xml: "XML", ini: "INI", csv: "CSV",
};

const BY_NAME: Record<string, string> = {
  Dockerfile: "Dockerfile",
  Makefile: "Makefile",
  GNUmakefile: "Makefile",
  Jenkinsfile: "Groovy",
  Rakefile: "Ruby",
  Gemfile: "Ruby",
};

const NO_EXTENSION = "(no extension)";

export function countLanguages(paths: readonly string[]): LanguageCount[] {
  const counts = new Map<string, { files: number; extensions: Set<string> }>();
  for (const path of paths) {
    const { language, extension } = classify(basename(path));
    const entry = counts.get(language) ?? { files: 0, extensions: new Set<string>() };
    entry.files++;
    if (extension) entry.extensions.add(extension);
    counts.set(language, entry);
  }
  return [...counts.entries()]
    .map(([language, { files, extensions }]) => ({ language, files, extensions: [...extensions].sort() }))
    .sort((a, b) => b.files - a.files || (a.language < b.language ? -1 : 1));
}

function classify(name: string): { language: string; extension: string | null } {
  const known = BY_NAME[name] ?? (name.startsWith("Dockerfile.") ? "Dockerfile" : undefined);
  if (known) return { language: known, extension: null };
  const dot = name.lastIndexOf(".");
  if (dot <= 0 || dot === name.length - 1) return { language: NO_EXTENSION, extension: null };
  const extension = name.slice(dot + 1).toLowerCase();
  return { language: BY_EXTENSION[extension] ?? `.${extension}`, extension: `.${extension}` };
}
