/**
 * hooktap's version, from deno.json, and the oldest Deno it runs on: a leaf
 * module, so a command that prints the version imports neither the command
 * list nor another command. main.ts checks the Deno before any command: an
 * older one would fail in the middle of a command with an error that names
 * neither the cause nor the fix (`file.tryLock is not a function` on Deno 2.5,
 * `AsyncDisposableStack is not defined` on 2.1, from `deno task install`'s
 * shim or `deno run` with an older `deno` on the PATH).
 * @module
 */
import denoJson from "../deno.json" with { type: "json" };

/** hooktap's version, from deno.json. */
export const VERSION: string = denoJson.version;

/** The oldest Deno release hooktap runs on: the minor version it is tested with (the npm package pins it). */
export const OLDEST_DENO = "2.9.0";

function _parts(version: string): number[] {
  return version.split(/[+-]/)[0]!.split(".").map((p) => Number.parseInt(p, 10) || 0);
}

/**
 * Why Deno `version` cannot run hooktap, as a sentence naming the fix, or `undefined` when it can (2.9.0 and
 * newer, any later major).
 */
export function denoTooOld(version: string = Deno.version.deno): string | undefined {
  const have = _parts(version);
  const need = _parts(OLDEST_DENO);
  for (let i = 0; i < need.length; i++) {
    const h = have[i] ?? 0;
    if (h > need[i]!) return undefined;
    if (h < need[i]!) {
      return `hooktap needs Deno ${OLDEST_DENO} or newer, and this is Deno ${version}. ` +
        "Upgrade it (deno upgrade, or npm install -g deno for the npm one), then run the same command again; " +
        "the npm package hooktap brings its own Deno.";
    }
  }
  return undefined;
}
