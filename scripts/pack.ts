/**
 * `deno task pack`: builds the npm package `hooktap` and writes exactly one
 * file, `dist/hooktap-<version>.tgz`. The CLI is bundled to JavaScript
 * (`deno bundle --code-splitting`) so nothing is fetched or transpiled when
 * it runs: `lib/main.js`, one entry `lib/<path>.js` for each module the CLI
 * loads lazily (src/cli/lazy.ts: each command's action, each trigger
 * catalog), and their shared chunks; a command loads only its own modules.
 * The help and the commands run most (`logs`, `trigger`, `inspect`,
 * `replay`, `export`, `complete`) run single-file bundles of their own instead
 * (`lib/main_<command>.js`, `lib/main_help.js`: npm/hooktap.cjs's ENTRIES),
 * which carry main.ts and every module the command loads lazily but the
 * providers' catalogs, so they start from one file; `trigger`'s is lean
 * (LEAN): it starts from two files with what its common run needs, the rest
 * in chunks of its own build loaded when a run asks for them. Two packs of
 * one checkout are the same bytes.
 * `bin/hooktap.cjs` (npm/hooktap.cjs) runs it on the Deno binary of the
 * exact `deno` npm package this checkout is tested with; its postinstall
 * (npm/postinstall.cjs) puts a shell launcher there that runs that binary
 * directly (docs/install.md).
 * @module
 */
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath as fromFileUrl, pathToFileURL } from "node:url";
import denoJson from "../deno.json" with { type: "json" };
import { LAZY_CALL } from "../src/cli/lazy.ts";
import { lazyModules } from "./lazy_modules.ts";

/** The Deno version the package depends on: the one that runs this script (CI tests with it). */
export const DENO_VERSION: string = Deno.version.deno;

const ROOT = dirname(dirname(fromFileUrl(import.meta.url)));

async function run(cmd: string, args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd, stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(
      `${cmd} ${args.join(" ")} failed (${out.code}):\n${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return text;
}

/** `deno info` graphs already walked, by root and entry: each pack asks for some of them twice. */
const GRAPHS = new Map<string, Promise<string[]>>();

/** Project files (paths from `root`) that `entry` imports as code, itself included: `deno info`'s graph. */
function codeGraph(root: string, entry: string): Promise<string[]> {
  const key = `${root}\0${entry}`;
  if (!GRAPHS.has(key)) GRAPHS.set(key, _codeGraph(root, entry));
  return GRAPHS.get(key)!;
}

async function _codeGraph(root: string, entry: string): Promise<string[]> {
  const info = JSON.parse(
    await run(
      Deno.execPath(),
      ["info", "--json", `--config=${join(root, "deno.json")}`, join(root, entry)],
      root,
    ),
  ) as {
    roots: string[];
    modules: { specifier: string; dependencies?: { code?: { specifier?: string } }[] }[];
    redirects: Record<string, string>;
  };
  const base = pathToFileURL(join(root, "/")).href;
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const files = new Set<string>();
  const stack = [...info.roots];
  while (stack.length > 0) {
    const next = stack.pop()!;
    const specifier = info.redirects[next] ?? next;
    if (files.has(specifier) || !specifier.startsWith(base)) continue;
    files.add(specifier);
    for (const d of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (d.code?.specifier) stack.push(d.code.specifier);
    }
  }
  return [...files].map((f) => decodeURIComponent(f.slice(base.length)));
}

/**
 * Lazily loaded modules no single-file bundle carries: each provider's trigger catalog (its samples, one
 * generated module per event, hundreds in all) and its webhook schema. They stay files of lib/, so
 * `trigger` reads the one provider's catalog and the one sample it sends.
 */
const CATALOG_PART = /^src\/providers\/[^/]+\/(catalog\.ts|schema\.ts|samples\/)/;

/**
 * Single-file bundles that carry the providers' verification modules (src/providers/<name>/verify.ts and
 * src/providers/hmac.ts) where their command reaches them; the others leave them files of lib/, loaded
 * for the one provider a run needs. `trigger` must carry them: its own modules import hmac.ts (the check in
 * {@linkcode singleFileEntry} refuses a second copy); being {@linkcode LEAN}, it carries each as a chunk
 * of its own build, and one signed `trigger` reads 8 files of lib/ (its entry and first chunk, the
 * provider's signer, its catalog and 3 small chunks, the sample). `inspect` reaches every verifier but a
 * run needs at most one: carrying all 20 made each run evaluate them all (1.46× the empty script against
 * 1.16× without them, and 1.64× from lib/main.js: 20 pairs, each file with its own code cache).
 */
const CARRIES_VERIFIERS = new Set(["main_trigger.js"]);

/**
 * The lazily loaded modules a single-file bundle of `roots` carries: every `lazyImport` reachable from
 * them through code imports and other lazily loaded modules, except the actions of other commands
 * (src/commands/<name>/run.ts), the providers' catalogs and schemas ({@linkcode CATALOG_PART}) and, unless
 * `verifiers`, anything else of src/providers/ ({@linkcode CARRIES_VERIFIERS}). Sorted.
 */
export async function carriedModules(
  root: string,
  roots: readonly string[],
  verifiers = false,
  /** Filled with the lazily loaded modules of src/providers/ it reaches and leaves files of lib/. */
  leaves: Set<string> = new Set(),
): Promise<string[]> {
  const left = (path: string) => verifiers ? CATALOG_PART.test(path) : path.startsWith("src/providers/");
  const seen = new Set<string>();
  const carried = new Set<string>();
  const todo = [...roots];
  while (todo.length > 0) {
    for (const file of await codeGraph(root, todo.pop()!)) {
      if (seen.has(file)) continue;
      seen.add(file);
      if (file === "src/cli/lazy.ts") continue;
      for (const [, path] of (await Deno.readTextFile(join(root, file))).matchAll(LAZY_CALL)) {
        const action = /^src\/commands\/[^/]+\/run\.ts$/.test(path!) && !roots.includes(path!);
        if (left(path!)) leaves.add(path!);
        if (action || left(path!) || carried.has(path!) || roots.includes(path!)) continue;
        carried.add(path!);
        todo.push(path!);
      }
    }
  }
  for (const path of roots) if (path !== "main.ts") carried.add(path);
  return [...carried].sort();
}

/**
 * Modules both a single-file bundle and the files of lib/ it leaves (the providers' modules) may hold, each
 * a copy of its own: they keep no state the two share. lazy.ts's preloads are the bundle's own (a
 * catalog's copy imports its samples from their files); _ids.ts makes random ids; the event record's
 * modules and bytes.ts (the verifiers' chunk) are functions and constant tables, no class an `instanceof`
 * could tell apart. Any other module in both fails the pack: src/providers/hmac.ts, for one, holds the
 * WebCrypto switch `trigger` sets for the provider's own signing code, so the two must be one instance.
 */
const SHARED_WITH_LEFT = new Set([
  "src/cli/lazy.ts",
  "src/providers/_ids.ts",
  "src/event/delivery.ts",
  "src/event/form_type.ts",
  "src/event/record.ts",
  "src/bytes.ts",
]);

/** The source modules in a file esbuild wrote: its `// <path>` comments. */
function bundledModules(text: string): Set<string> {
  return new Set([...text.matchAll(/^\/\/ (\S+\.ts)$/gm)].map((m) => m[1]!));
}

/** Source modules in the files of `lib` for the lazily loaded `paths`, with the chunks they import. */
async function libModules(lib: string, paths: readonly string[]): Promise<Set<string>> {
  const modules = new Set<string>();
  const seen = new Set<string>();
  const todo = paths.map((path) => join(lib, path.replace(/\.ts$/, ".js")));
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = await Deno.readTextFile(file);
    for (const m of bundledModules(text)) modules.add(m);
    for (const [, spec] of text.matchAll(/(?:from|import) "(\.[^"]+\.js)"/g)) {
      todo.push(join(dirname(file), spec!));
    }
  }
  return modules;
}

/** What a lean bundle starts with: see {@linkcode LEAN}. */
interface Lean {
  /** Lazily loaded modules it carries in its first chunk; the others it carries are chunks of their own. */
  readonly start: readonly string[];
  /**
   * Modules the chunks of the others share, in the first chunk too: each of them is then one file
   * (without, one provider's signer read 4 files: its own and 3 chunks of what the signers share).
   */
  readonly with: readonly string[];
}

/**
 * Bundles whose lazily loaded modules are not all inside them, by script: the modules of `start` begin
 * with the bundle (registered with `preloadLazy`), and every other module it carries (the config's
 * loader and checks, each provider's signer, the fixture, the key pairs, the list, dev's side channel, the
 * store's lookups) is a chunk of the bundle's own build, loaded at the first `lazyImport` of it
 * (`deferLazy`, src/cli/lazy.ts). One `trigger <provider> <event> --to URL --secret S` then compiles and
 * evaluates half the code it did as one file carrying them all (issue 36); the chunks import the bundle's
 * own instances of what they share with it (one build, so one copy of each module: its error classes, the
 * WebCrypto switch of src/providers/hmac.ts).
 */
const LEAN: Readonly<Record<string, Lean>> = {
  "main_trigger.js": {
    start: ["src/commands/trigger/command.ts", "src/commands/trigger/run.ts", "src/providers/hmac.ts"],
    with: ["src/providers/_verdict.ts", "src/providers/view.ts", "src/event/record.ts"],
  },
};

/**
 * Writes the scratch modules of a bundle of `carried` (see {@linkcode singleFileEntry}); resolves to the
 * entries of its build: its own, then a lean bundle's deferred modules.
 */
async function scratchEntry(
  root: string,
  scratch: string,
  name: string,
  carried: readonly string[],
  lean: Lean | undefined,
): Promise<string[]> {
  const url = (path: string) => JSON.stringify(pathToFileURL(join(root, path)).href);
  const now = lean === undefined ? carried : carried.filter((path) => lean.start.includes(path));
  const later = lean === undefined ? [] : carried.filter((path) => !lean.start.includes(path));
  // A lean bundle's deferred modules are entries of its build, each named by its module
  // (main_trigger_src_config_load_ts.ts, built to lib/main_trigger_src_config_load_ts.js), and each imports
  // the core: every module the bundle starts with is then shared by the entry and all of them, and the build
  // puts them all in one chunk instead of one chunk per set of modules sharing each (the entry would import
  // many files).
  const wrapper = (path: string) => `${name}_${path.replace(/[^A-Za-z0-9]/g, "_")}.ts`;
  for (const path of later) {
    await Deno.writeTextFile(
      join(scratch, wrapper(path)),
      `import ${JSON.stringify(`./${name}_core.ts`)};\nexport * from ${url(path)};\n`,
    );
  }
  // The preloads first: a module's imports run in order, so they are registered before main.ts runs. A lean
  // bundle's core runs the command itself, without waiting on it (no top-level await): its chunk becomes the
  // entry ({@linkcode leanEntry}), and the deferred chunks that import it must find it evaluated.
  await Deno.writeTextFile(
    join(scratch, `${name}_core.ts`),
    lean === undefined
      ? `import ${JSON.stringify(`./${name}_preload.ts`)};\nexport { run } from ${url("main.ts")};\n`
      : `import ${JSON.stringify(`./${name}_preload.ts`)};\nimport { run } from ${
        url("main.ts")
      };\nrun(Deno.args);\n`,
  );
  await Deno.writeTextFile(
    join(scratch, `${name}_preload.ts`),
    [
      `import { deferLazy, preloadLazy } from ${url("src/cli/lazy.ts")};`,
      ...now.map((path, i) => `import * as m${i} from ${url(path)};`),
      ...(lean?.with ?? []).map((path) => `import ${url(path)};`),
      `preloadLazy({ ${now.map((path, i) => `${JSON.stringify(path)}: m${i}`).join(", ")} });`,
      // Not literal imports: Deno would read and parse every deferred file before the command starts.
      "const later = (file: string) => () => import(new URL(file, import.meta.url).href);",
      `deferLazy({ ${
        later.map((path) =>
          `${JSON.stringify(path)}: later(${JSON.stringify(`./${wrapper(path).replace(/\.ts$/, ".js")}`)})`
        )
          .join(", ")
      } });`,
      "",
    ].join("\n"),
  );
  const entry = join(scratch, `${name}.ts`);
  // One turn of Deno's event loop before the command, by importing an empty module: Deno writes a
  // file's V8 code cache on that loop once the file is compiled (its first run), and a command that never
  // waits on the loop (the help, `logs`: their reads are synchronous) would exit first, so every run would
  // compile the whole file again. A timer would cost a wait; this import costs ~0.2 ms (0.4 ms measured in
  // `trigger`, which a lean bundle skips: it waits on the loop anyway, importing the provider's catalog).
  const turn = lean === undefined
    ? [
      // Not a literal: the bundler would put the module inside the file, and importing it would not wait.
      'const empty = ["data:text/javascript", ""].join(",");',
      "await import(empty).catch(() => {});",
    ]
    : [];
  await Deno.writeTextFile(
    entry,
    lean === undefined
      ? [`import { run } from ${JSON.stringify(`./${name}_core.ts`)};`, ...turn, "await run(Deno.args);", ""]
        .join("\n")
      : `import ${JSON.stringify(`./${name}_core.ts`)};\n`,
  );
  return [entry, ...later.map((path) => join(scratch, wrapper(path)))];
}

/**
 * A lean bundle's build with its core chunk as the entry `script`: esbuild writes an entry that only imports
 * the chunk every deferred chunk imports too, and Deno would read both files at every start (~0.7 ms more
 * than one file, measured). The chunk runs the command (see {@linkcode scratchEntry}); the deferred chunks
 * import it by the entry's name, the same module.
 */
function leanEntry(files: ReadonlyMap<string, string>, script: string): Map<string, string> {
  const chunk = /^import "\.\/([^"/]+\.js)";\s*$/.exec(files.get(script) ?? "")?.[1];
  if (chunk === undefined || !files.has(chunk)) {
    throw new Error(`${script}: the build's entry does more than import its core chunk`);
  }
  const out = new Map<string, string>();
  for (const [file, text] of files) {
    if (file === script) continue;
    out.set(file === chunk ? script : file, text.replaceAll(`"./${chunk}"`, `"./${script}"`));
  }
  return out;
}

/**
 * The files of a code-split build (name to text) renamed so two packs of one checkout name them alike:
 * esbuild's `<name>-<hash>.js` hashes what it wrote, the scratch entries' temp directory included. Each is
 * named by the SHA-256 of its text with every such name in it reduced to its stem, and every reference
 * follows.
 */
async function stableNames(files: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const hashed = /^(.+)-[A-Z0-9]{8}\.js$/;
  const stems = [...files.keys()].flatMap((file) => {
    const m = hashed.exec(file);
    return m === null ? [] : [[file, m[1]!] as const];
  });
  // Longest first: no name is replaced inside a longer one.
  stems.sort(([a], [b]) => b.length - a.length);
  const reduce = (text: string) => stems.reduce((t, [file, stem]) => t.replaceAll(file, `${stem}.js`), text);
  const renamed = new Map<string, string>();
  for (const [file, stem] of stems) {
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(reduce(files.get(file)!))),
    );
    const hash = [...digest.slice(0, 5)].map((b) => b.toString(32).padStart(2, "0")).join("").toUpperCase();
    renamed.set(file, `${stem}-${hash}.js`);
  }
  if (new Set(renamed.values()).size !== renamed.size) throw new Error("two chunks of a build are the same");
  const out = new Map<string, string>();
  for (const [file, text] of files) {
    out.set(
      renamed.get(file) ?? file,
      stems.reduce((t, [old]) => t.replaceAll(old, renamed.get(old)!), text),
    );
  }
  return out;
}

/**
 * Writes `<lib>/<script>`: one file that runs main.ts with the lazily loaded modules of `roots` inside it,
 * registered with `preloadLazy` (src/cli/lazy.ts) before main.ts runs, so the command starts from this
 * file alone. A lazy module it does not carry loads from its lib/ file. A {@linkcode LEAN} script is the
 * entry of a build of its own instead: the file, the chunk of what it starts with, and a chunk for each
 * module it loads later (files of lib/ too).
 */
async function singleFileEntry(
  root: string,
  lib: string,
  script: string,
  roots: string[],
  scratch: string,
  lazy: readonly string[],
): Promise<void> {
  const leaves = new Set<string>();
  const carried = await carriedModules(root, roots, CARRIES_VERIFIERS.has(script), leaves);
  const lean = LEAN[script];
  const strange = (lean?.start ?? []).filter((path) => !carried.includes(path));
  if (strange.length > 0) throw new Error(`${script}: it does not carry ${strange.join(", ")}`);
  const name = script.replace(/\.js$/, "");
  const entries = await scratchEntry(root, scratch, name, carried, lean);
  const out = join(scratch, `${name}_out`);
  await run(Deno.execPath(), [
    "bundle",
    "--quiet",
    "--platform=deno",
    `--config=${join(root, "deno.json")}`,
    ...(lean === undefined ? ["--output", join(out, script)] : ["--code-splitting", "--outdir", out]),
    ...entries,
  ], root);
  const built = new Map<string, string>();
  for await (const file of Deno.readDir(out)) {
    // esbuild names each module in a comment by its path from the checkout: the scratch entries' temp
    // directory would make every pack differ.
    const text = await Deno.readTextFile(join(out, file.name));
    built.set(file.name, text.replaceAll(`// ${relative(root, scratch)}/`, "// "));
  }
  const texts: string[] = [];
  for (const [file, text] of await stableNames(lean === undefined ? built : leanEntry(built, script))) {
    const target = join(lib, file);
    const there = await Deno.readTextFile(target).catch(() => undefined);
    if (there !== undefined && there !== text) {
      throw new Error(`${script}: its build would overwrite ${file}`);
    }
    await Deno.writeTextFile(target, text);
    texts.push(text);
  }
  const text = texts.join("\n");
  // Deno reads every file a literal `import("./x.js")` names before the command starts (src/cli/lazy.ts).
  if (/\bimport\(\s*["'`]\.{1,2}\//.test(text)) {
    throw new Error(`${script}: a literal dynamic import would load its file at every start`);
  }
  // main.ts runs once: from the entry (its own `if (import.meta.main)` is false inside a bundle).
  if (text.includes("import.meta.main")) {
    throw new Error(`${script}: main.ts would run twice (import.meta.main)`);
  }
  const leftFiles = await libModules(
    lib,
    // What the files it leaves load in turn: their provider's other lazily loaded modules (the samples).
    lazy.filter((path) =>
      !carried.includes(path) && [...leaves].some((l) => path.startsWith(l.slice(0, l.lastIndexOf("/") + 1)))
    ),
  );
  const twice = [...bundledModules(text)].filter((m) => leftFiles.has(m) && !SHARED_WITH_LEFT.has(m));
  if (twice.length > 0) {
    throw new Error(
      `${script}: the providers' files of lib/ would load a second copy of ${twice.join(", ")}`,
    );
  }
}

/** The package.json of the npm package. */
export function packageJson(version: string, denoVersion: string): Record<string, unknown> {
  return {
    name: "hooktap",
    version,
    description: "Receive webhooks on your own machine: capture, inspect, verify, forward and replay them.",
    license: denoJson.license,
    keywords: ["webhook", "webhooks", "cli", "stripe", "github", "replay", "inspector"],
    bin: { hooktap: "bin/hooktap.cjs" },
    // On Linux and macOS, puts the shell launcher (no Node at run time) over bin/hooktap.cjs; never fails.
    scripts: { postinstall: "node bin/postinstall.cjs" },
    type: "module",
    types: "./index.d.ts",
    exports: {
      ".": { types: "./index.d.ts", default: "./index.js" },
      "./testing": { types: "./testing.d.ts", default: "./testing.js" },
    },
    files: ["bin/", "lib/", "index.js", "index.d.ts", "testing.js", "testing.d.ts", "README.md", "LICENSE"],
    dependencies: { deno: denoVersion },
    engines: { node: ">=18" },
  };
}

/**
 * Writes the bundled CLI into `lib` (an existing, empty directory): `main.js`, each lazily loaded module at
 * `<path>.js`, the shared chunks, and the single-file bundles of npm/hooktap.cjs's ENTRIES. The npm
 * package ships it as its `lib/`; `deno task install` installs it (scripts/install_lib.ts).
 */
export async function buildLib(root: string, lib: string): Promise<void> {
  const lazy = await lazyModules(root);
  await run(Deno.execPath(), [
    "bundle",
    "--quiet",
    "--platform=deno",
    // Shared code in chunks: a command loads only what it runs, as from source.
    "--code-splitting",
    `--config=${join(root, "deno.json")}`,
    "--outdir",
    lib,
    join(root, "main.ts"),
    // Each lazily loaded module is an entry of its own, at lib/<path>.js, where src/cli/lazy.ts looks.
    ...lazy.map((path) => join(root, path)),
  ], root);
  const missing = [];
  for (const path of lazy) {
    try {
      await Deno.stat(join(lib, path.replace(/\.ts$/, ".js")));
    } catch {
      missing.push(path);
    }
  }
  if (missing.length > 0) throw new Error(`the bundle lacks lazily loaded modules: ${missing.join(", ")}`);
  // The help and the commands of npm/hooktap.cjs's ENTRIES start from one file each (by first argument).
  const { ENTRIES } = createRequire(import.meta.url)(join(root, "npm", "hooktap.cjs")) as {
    ENTRIES: Record<string, string>;
  };
  const entries = await Deno.makeTempDir({ prefix: "hooktap_pack_entries_" });
  try {
    for (const script of new Set(Object.values(ENTRIES))) {
      const commands = Object.entries(ENTRIES)
        .filter(([word, s]) => s === script && /^[a-z]+$/.test(word))
        .map(([word]) => `src/commands/${word}/run.ts`)
        .filter((path) => lazy.includes(path));
      await singleFileEntry(root, lib, script, ["main.ts", ...commands], entries, lazy);
    }
  } finally {
    await Deno.remove(entries, { recursive: true });
  }
}

/**
 * Builds the package in a temp directory and packs it into `outDir` (`dist/` of the checkout by default);
 * resolves to the tgz's path. Tests pass a directory of their own, so two of them packing at once never
 * write the same file.
 */
export async function pack(root: string = ROOT, outDir: string = join(root, "dist")): Promise<string> {
  const version = denoJson.version;
  const stage = await Deno.makeTempDir({ prefix: "hooktap_pack_" });
  try {
    await Deno.mkdir(join(stage, "bin"));
    await Deno.mkdir(join(stage, "lib"));
    await buildLib(root, join(stage, "lib"));
    await Deno.copyFile(join(root, "npm", "hooktap.cjs"), join(stage, "bin", "hooktap.cjs"));
    await Deno.chmod(join(stage, "bin", "hooktap.cjs"), 0o755);
    // The postinstall keeps the Node launcher beside the shell one it writes over bin/hooktap.cjs.
    await Deno.copyFile(join(root, "npm", "hooktap.cjs"), join(stage, "bin", "launcher.cjs"));
    await Deno.copyFile(join(root, "npm", "postinstall.cjs"), join(stage, "bin", "postinstall.cjs"));
    for (const file of ["index.js", "index.d.ts", "testing.js", "testing.d.ts", "README.md"]) {
      await Deno.copyFile(join(root, "npm", file), join(stage, file));
    }
    await Deno.copyFile(join(root, "LICENSE"), join(stage, "LICENSE"));
    // The launcher runs Deno with --no-config and this import map: a config's value import of "hooktap" gets
    // this package's own index.js, whatever the project's package.json or deno.json say.
    await Deno.writeTextFile(
      join(stage, "lib", "import_map.json"),
      '{ "imports": { "hooktap": "../index.js" } }\n',
    );
    await Deno.writeTextFile(
      join(stage, "package.json"),
      JSON.stringify(packageJson(version, DENO_VERSION), null, 2) + "\n",
    );
    const dist = outDir;
    await Deno.mkdir(dist, { recursive: true });
    const name = (await run("npm", ["pack", "--silent", "--pack-destination", dist], stage)).trim();
    return join(dist, name);
  } finally {
    await Deno.remove(stage, { recursive: true });
  }
}

if (import.meta.main) {
  // `deno task pack [--out-dir DIR]`
  const at = Deno.args.indexOf("--out-dir");
  const outDir = at >= 0 ? Deno.args[at + 1] : undefined;
  if (at >= 0 && (outDir === undefined || outDir === "")) throw new Error("--out-dir needs a directory");
  const file = await pack(ROOT, outDir ?? join(ROOT, "dist"));
  const size = (await Deno.stat(file)).size;
  await Deno.stdout.write(new TextEncoder().encode(`${file} (${(size / 1024).toFixed(0)} KiB)\n`));
}
