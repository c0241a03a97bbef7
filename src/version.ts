/**
 * hooktap's version, from deno.json: a leaf module, so a command that prints
 * the version imports neither the command list nor another command.
 * @module
 */
import denoJson from "../deno.json" with { type: "json" };

/** hooktap's version, from deno.json. */
export const VERSION: string = denoJson.version;
