/**
 * Imports a module only when it runs, out of the start-up graph. A
 * dynamic `import("./run.ts")` with a literal is analyzable: Deno loads,
 * reads and parses every such module (and all they import) before the
 * program starts, so `hooktap --help` opened every command's action and the
 * trigger catalog. {@linkcode lazyImport} builds the specifier at run time,
 * which Deno cannot follow ahead.
 *
 * Each lazily loaded module is named by its path from the repository's root
 * (`"src/commands/logs/run.ts"`), as a string literal at the call, so the
 * tools that must see them all find them: `scripts/pack.ts` bundles each as
 * an entry of the npm package (where it is `lib/<path>.js`), the compile task
 * and the release workflow pass them to `deno compile --include`, and
 * tests/architecture_test.ts checks the list ({@linkcode LAZY_CALL}).
 * @module
 */

/** How a call names its module in the source: `lazyImport<...>("src/x.ts")`; tools find calls with it. */
export const LAZY_CALL: RegExp = /lazyImport(?:<[^>]*>)?\(\s*"([^"]+)"\s*,?\s*\)/g;

const SELF = import.meta.url;
/** From source (a checkout, JSR, `deno compile`) this file is src/cli/lazy.ts; in the npm bundle it is a chunk of lib/. */
const FROM_SOURCE = SELF.endsWith("/src/cli/lazy.ts");
const ROOT = new URL(FROM_SOURCE ? "../../" : "./", SELF);

/** Where `path` (from the repository's root) is in this layout: itself from source, `<path>.js` in the bundle. */
export function lazyUrl(path: string): string {
  return new URL(FROM_SOURCE ? path : path.replace(/\.ts$/, ".js"), ROOT).href;
}

/** Modules a single-file bundle carries in itself, by path: {@linkcode preloadLazy}. */
const PRELOADED = new Map<string, unknown>();

/**
 * Registers modules that are already loaded, by their path from the repository's root, so
 * {@linkcode lazyImport} returns them instead of importing their file. Only the npm package's single-file
 * bundles call it (scripts/pack.ts: `hooktap logs` and the help start from one file, their lazily loaded
 * modules inside); from source nothing is registered.
 */
export function preloadLazy(modules: Readonly<Record<string, unknown>>): void {
  for (const [path, module] of Object.entries(modules)) PRELOADED.set(path, module);
}

/** Modules a lean bundle loads from chunks of its own build at first use, by path: {@linkcode deferLazy}. */
const DEFERRED = new Map<string, () => Promise<unknown>>();

/**
 * Registers, by their path from the repository's root, how to load modules from the chunks of a lean
 * bundle's own build (scripts/pack.ts: `hooktap trigger` starts from the modules its common run needs and
 * loads the rest, config loading and each provider's signer among them, when a run asks for them), so
 * {@linkcode lazyImport} calls `load` instead of importing the module's file of lib/. Those chunks share
 * the bundle's instances of the modules they import (its error classes, src/providers/hmac.ts's switch).
 */
export function deferLazy(loaders: Readonly<Record<string, () => Promise<unknown>>>): void {
  for (const [path, load] of Object.entries(loaders)) DEFERRED.set(path, load);
}

/**
 * Imports `path` (from the repository's root, a string literal) when called. Type the result with the
 * module's own type: `lazyImport<typeof import("./run.ts")>("src/commands/logs/run.ts")`.
 */
export async function lazyImport<T>(path: string): Promise<T> {
  const preloaded = PRELOADED.get(path);
  if (preloaded !== undefined) return preloaded as T;
  const deferred = DEFERRED.get(path);
  if (deferred !== undefined) return await deferred() as T;
  const url = lazyUrl(path);
  try {
    return await import(url) as T;
  } catch (error) {
    // Deno checks a module it did not see at start-up against the read permission.
    if (ROOT.protocol === "file:" && error instanceof Error && /Requires read access/.test(error.message)) {
      const dir = decodeURIComponent(new URL(FROM_SOURCE ? "src/" : "./", ROOT).pathname);
      throw new Deno.errors.NotCapable(
        `Requires read access to hooktap's own modules in "${dir}" (each is imported when a command ` +
          `needs it): add --allow-read=${dir}`,
      );
    }
    throw error;
  }
}
