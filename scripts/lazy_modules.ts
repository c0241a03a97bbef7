/**
 * The modules hooktap loads lazily (src/cli/lazy.ts): every `lazyImport("<path>")` in the shipped source
 * (main.ts, mod.ts and src/).
 * scripts/pack.ts bundles each as an entry; `deno task compile` and the release workflow include them
 * (`deno run scripts/lazy_modules.ts --include` prints them as `--include` flags).
 * @module
 */
import { LAZY_CALL } from "../src/cli/lazy.ts";

/** The paths (from the repository's root) that `lazyImport` loads anywhere in main.ts, mod.ts and `src/`, sorted. */
export async function lazyModules(root: string | URL = new URL("../", import.meta.url)): Promise<string[]> {
  const base = typeof root === "string" ? new URL(`file://${root.replace(/\/?$/, "/")}`) : root;
  const found = new Set<string>();
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(new URL(dir, base))) {
      const path = `${dir}${entry.name}`;
      if (entry.isDirectory) await walk(`${path}/`);
      else if (/\.ts$/.test(entry.name) && !/_test\.ts$/.test(entry.name) && path !== "src/cli/lazy.ts") {
        const text = await Deno.readTextFile(new URL(path, base));
        for (const m of text.matchAll(LAZY_CALL)) found.add(m[1]!);
      }
    }
  }
  await walk("src/");
  // main.ts imports each command's declaration lazily (the one its first word names).
  for (const entry of ["main.ts", "mod.ts"]) {
    for (const m of (await Deno.readTextFile(new URL(entry, base))).matchAll(LAZY_CALL)) found.add(m[1]!);
  }
  return [...found].sort();
}

if (import.meta.main) {
  const paths = await lazyModules();
  const words = Deno.args.includes("--include") ? paths.map((p) => `--include=${p}`) : paths;
  await Deno.stdout.write(
    new TextEncoder().encode(words.join(Deno.args.includes("--include") ? " " : "\n") + "\n"),
  );
}
