/**
 * The inspector's token on disk, for the user who started it and nobody
 * else: `.hooktap/inspector-PORT.token` (the token, for scripts) and
 * `.hooktap/inspector-PORT.html` (a page that sends a browser on to the
 * link with the token, so `ui --open` never puts the token on a command
 * line, which `ps` shows to every user). Both owner-only (0600), written
 * to an exclusive temp file and renamed into place: never through a link.
 * Synchronous, like the inspector's start.
 * @module
 */
import { describeError } from "../errors.ts";
import { inspectorFiles } from "../store/paths.ts";
import { makePrivateDirSync, writeFileReplacingSync } from "../store/write/no_follow.ts";

/** The files written for an inspector. */
export interface TokenFiles {
  /** `.hooktap/inspector-PORT.token` */
  token: string;
  /** `.hooktap/inspector-PORT.html` */
  page: string;
}

/** Escapes text for an HTML attribute value. */
function _attr(text: string): string {
  return text.replace(/[&"<>']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Writes the token files of the inspector on `port` into the data directory `dir` (created owner-only
 * when missing; refused when it is a link).
 * @returns the files, or why they could not be written (the printed link still works).
 */
export function writeTokenFiles(
  dir: string,
  port: number,
  token: string,
  openUrl: string,
): TokenFiles | { problem: string } {
  try {
    makePrivateDirSync(dir, "data directory");
    const files = inspectorFiles(dir, port);
    writeFileReplacingSync(files.token, token + "\n");
    writeFileReplacingSync(
      files.page,
      `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">` +
        `<meta http-equiv="refresh" content="0;url=${_attr(openUrl)}"><title>hooktap inspector</title>` +
        `<p>Opening the hooktap inspector…</p>\n`,
    );
    return files;
  } catch (error) {
    return { problem: describeError(error) };
  }
}

/** Removes the token files when they still hold `token` (another inspector may have taken the port since). */
export function removeTokenFiles(files: TokenFiles, token: string): void {
  try {
    if (Deno.readTextFileSync(files.token).trim() !== token) return;
    Deno.removeSync(files.token);
    Deno.removeSync(files.page);
  } catch { /* gone already, or not ours to remove */ }
}
