/**
 * The `--config FILE` words of a suggested command (src/text/command_line.ts), apart from it: the lean
 * `trigger` start-up loads command_line.ts, not the path helpers this needs.
 * @module
 */
import { pathInside, resolvePath } from "./path.ts";

/**
 * The `--config FILE` words a suggested command needs to use the config at `file` (absolute, or relative to
 * `cwd`): none for the default `hooktap.config.ts` of `cwd` or the starter config (`null`); the path
 * relative to `cwd` when it is inside it, else absolute.
 */
export function configWords(file: string | null | undefined, cwd: string = Deno.cwd()): string[] {
  if (file === null || file === undefined || file === "") return [];
  const inside = pathInside(cwd, resolvePath(cwd, file));
  return inside === "hooktap.config.ts" ? [] : ["--config", inside];
}

/**
 * The config file's name as the user should read it: relative to `cwd` when inside it, else absolute;
 * `hooktap.config.ts` for none (`null`, the built-in starter config: the file to create).
 */
export function configName(file: string | null | undefined, cwd: string = Deno.cwd()): string {
  if (file === null || file === undefined || file === "") return "hooktap.config.ts";
  return pathInside(cwd, resolvePath(cwd, file));
}
