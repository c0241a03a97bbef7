/**
 * `deno task install`'s build: writes `dist/deno_install/` (gitignored), what the installed `hooktap` runs.
 * - `lib/`: the CLI bundled to JavaScript, the same files the npm package runs (scripts/pack.ts's
 *   {@linkcode buildLib}): from a checkout, Deno transpiles each of ~40 TypeScript modules at every start
 *   and reads its inline source map; a bundle has neither cost.
 * - `lib/hooktap.js`: the entry the shim runs. It picks the bundle the npm launchers pick by the first
 *   argument (npm/hooktap.cjs's `ENTRIES`: the help and the commands run most start from one file; the
 *   others from `lib/main.js`) and imports it, by a URL made at run time (a literal would make Deno read
 *   every bundle before the command starts).
 * - `import_map.json`: a config's `import { defineConfig } from "@hooktap/hooktap"` (or from `"hooktap"`,
 *   as a config written for the npm package says) gets this checkout's mod.ts, as `deno install --config`
 *   mapped it when the install ran main.ts; `@hooktap/hooktap/testing` gets src/testing/mod.ts.
 *
 * The directory is replaced whole: a build is written beside it, then renamed over it.
 *
 *     deno run --allow-read --allow-write --allow-run --allow-env scripts/deno_install.ts [--out DIR]
 * @module
 */
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { buildLib } from "./pack.ts";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/** Where `deno task install` builds, from the checkout's root; its shim runs {@linkcode ENTRY} in it. */
export const OUT = "dist/deno_install";
/** The file the shim runs, from {@linkcode OUT}. */
export const ENTRY = "lib/hooktap.js";

/** The text of `lib/hooktap.js`: runs the bundle of `entries` (the npm launcher's ENTRIES) for `Deno.args`. */
export function dispatcher(entries: Readonly<Record<string, string>>): string {
  return [
    "// Written by scripts/deno_install.ts: runs the bundle the npm launchers run for this first argument.",
    `const ENTRIES = ${JSON.stringify(entries)};`,
    'const word = Deno.args[0] ?? "";',
    'const script = Object.hasOwn(ENTRIES, word) ? ENTRIES[word] : "main.js";',
    "const module = await import(new URL(`./${script}`, import.meta.url).href);",
    "// The single-file bundles run the command themselves; main.js runs it only as the main module.",
    'if (script === "main.js") await module.run(Deno.args);',
    "",
  ].join("\n");
}

/** The import map of `out` (a directory of `root`): the package's names to the checkout's modules. */
export function importMap(root: string, out: string): string {
  const to = (path: string) => {
    const rel = relative(out, join(root, path)).split("\\").join("/");
    return rel.startsWith(".") ? rel : `./${rel}`;
  };
  return JSON.stringify(
    {
      imports: {
        "@hooktap/hooktap": to("mod.ts"),
        "@hooktap/hooktap/testing": to("src/testing/mod.ts"),
        hooktap: to("mod.ts"),
      },
    },
    null,
    2,
  ) + "\n";
}

/** Builds `out` (default `<root>/dist/deno_install`) and resolves to the path of its entry. */
export async function buildInstall(root: string = ROOT, out: string = join(root, OUT)): Promise<string> {
  await Deno.mkdir(dirname(out), { recursive: true });
  const next = `${out}.new-${crypto.randomUUID().slice(0, 8)}`;
  try {
    await Deno.mkdir(join(next, "lib"), { recursive: true });
    await buildLib(root, join(next, "lib"));
    const { ENTRIES } = createRequire(import.meta.url)(join(root, "npm", "hooktap.cjs")) as {
      ENTRIES: Record<string, string>;
    };
    await Deno.writeTextFile(join(next, ENTRY), dispatcher(ENTRIES));
    await Deno.writeTextFile(join(next, "import_map.json"), importMap(root, out));
    await Deno.remove(out, { recursive: true }).catch((e) => {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    });
    await Deno.rename(next, out);
  } catch (error) {
    await Deno.remove(next, { recursive: true }).catch(() => {});
    throw error;
  }
  return join(out, ENTRY);
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--out");
  const out = at >= 0 ? Deno.args[at + 1] : undefined;
  if (at >= 0 && (out === undefined || out === "")) throw new Error("--out needs a directory");
  await buildInstall(ROOT, out ?? join(ROOT, OUT));
}
