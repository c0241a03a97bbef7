/**
 * Where `hooktap dev --hub` and `hooktap hub` find the tokens, so that none
 * needs to be on a command line (which `ps` shows to every user of the
 * machine): the environment (`HOOKTAP_HUB_TOKEN`, `HOOKTAP_HUB_ADMIN_TOKEN`),
 * or a file readable by its owner only (the channel token in
 * `.hooktap/hub-token`). The flags (`--hub-token`, `--token`, `--admin-token`)
 * still work, with a warning.
 * @module
 */
import { joinPath } from "../text/path.ts";
import { HubError } from "./client.ts";
import { invokedAs } from "../text/command_line.ts";

/** The channel token's environment variable. */
export const HUB_TOKEN_ENV = "HOOKTAP_HUB_TOKEN";
/** The admin token's environment variable. */
export const ADMIN_TOKEN_ENV = "HOOKTAP_HUB_ADMIN_TOKEN";
/** The channel token's file, in the data directory. */
export const HUB_TOKEN_FILE = "hub-token";

/** The value of `name` in the environment, when Deno grants reading it (never a prompt); empty is none. */
export function tokenFromEnv(name: string): string | undefined {
  if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") return undefined;
  return Deno.env.get(name)?.trim() || undefined;
}

/**
 * The token in `<dataDir>/hub-token`, or `undefined` when there is none.
 * @throws {HubError} when the file is readable by other users (they could read the token: chmod 600), is
 * not a regular file, or holds no token.
 */
export async function tokenFromFile(dataDir: string): Promise<string | undefined> {
  const path = joinPath(dataDir, HUB_TOKEN_FILE);
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      return undefined; // not allowed to look: as if absent (the other sources still apply)
    }
    throw error;
  }
  if (!info.isFile) {
    throw new HubError(
      `${path} is not a regular file (a link?): write the channel token in a plain file there.`,
    );
  }
  if (info.mode !== null && (info.mode & 0o077) !== 0) {
    throw new HubError(
      `${path} can be read by other users of this machine (mode ${(info.mode & 0o777).toString(8)}): ` +
        `run chmod 600 ${path}, and rotate the token if others may have read it (${invokedAs()} hub token rotate).`,
    );
  }
  const token = (await Deno.readTextFile(path)).trim();
  if (token === "" || /\s/.test(token)) {
    throw new HubError(
      `${path} must hold the channel token alone (from \`${invokedAs()} hub channel create\`).`,
    );
  }
  return token;
}

/** The warning for a token given as a flag: it is visible to every user of the machine. */
export function tokenFlagWarning(flag: string, instead: string): string {
  return `${flag} puts the token on the command line, where \`ps\` shows it to every user of this machine; ` +
    `use ${instead} instead.`;
}

/** Where dev's channel token came from: what to say when the hub refuses it, and how to read it again. */
export interface HubTokenSource {
  token: string;
  /** What to do once the hub refuses it (`write the new token to …`), said as the end of a sentence. */
  fix: string;
  /**
   * Reads the token again from where it came from: only a file can change while dev runs (a flag, the
   * environment and the config's value are read once), so only the file's source has this.
   * @throws {HubError} as {@linkcode tokenFromFile} does.
   */
  reread?: () => Promise<string | undefined>;
}

/**
 * dev's channel token: `--hub-token`, else `HOOKTAP_HUB_TOKEN`, else `<dataDir>/hub-token`, else the config's
 * `hub.token`; `undefined` when none has one.
 * @throws {HubError} as {@linkcode tokenFromFile} does.
 */
export async function hubTokenSource(
  from: { flag: string | undefined; config: string | undefined; dataDir: string },
): Promise<HubTokenSource | undefined> {
  const path = joinPath(from.dataDir, HUB_TOKEN_FILE);
  const restart = "restart dev with the new token";
  if (from.flag !== undefined) {
    return {
      token: from.flag,
      fix: `${restart}, in ${path} (chmod 600) or ${HUB_TOKEN_ENV} (not --hub-token)`,
    };
  }
  const env = tokenFromEnv(HUB_TOKEN_ENV);
  if (env !== undefined) return { token: env, fix: `${restart} in ${HUB_TOKEN_ENV}` };
  const file = await tokenFromFile(from.dataDir);
  if (file !== undefined) {
    return {
      token: file,
      fix: `write the new token to ${path} (chmod 600): dev reconnects as soon as it changes`,
      reread: () => tokenFromFile(from.dataDir),
    };
  }
  if (from.config !== undefined) return { token: from.config, fix: `${restart} in the config's hub.token` };
  return undefined;
}
