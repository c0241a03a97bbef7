/**
 * The config's `hub` field: the channel `hooktap dev` connects to
 * (`hooktap dev --hub` and `--hub-token` win). Pure.
 * @module
 */
import { checkKeys, isRecord, type Issues, show } from "./_check.ts";

/** `hub` as a user writes it. */
export interface HubConfig {
  /** The channel URL from `hooktap hub channel create`: `https://hub.example.com/c/<id>`. */
  url: string;
  /** The channel's client token (better kept in HOOKTAP_HUB_TOKEN than in a committed file). */
  token?: string | undefined;
}

/** `hub` resolved. */
export interface ResolvedHub {
  /** The channel URL. */
  readonly url: string;
  /** The channel's client token, when one is set. */
  readonly token?: string;
}

/** Fields of `hub`. */
export const HUB_FIELDS: readonly string[] = ["url", "token"];

/** Checks `hub`, reporting problems with their field path. */
export function checkHub(value: unknown, issues: Issues): ResolvedHub | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) {
    issues.push(
      `hub must be { url: "https://hub.example.com/c/<id>", token?: "htk_..." }, got ${show(value)}`,
    );
    return undefined;
  }
  checkKeys(value, HUB_FIELDS, "hub", "a hub", issues);
  const { url, token } = value;
  let ok = true;
  if (typeof url !== "string" || !/^https?:\/\/[^/]+(\/.*)?\/c\/[A-Za-z0-9_-]{22}\/?$/.test(url)) {
    issues.push(
      `hub.url must be a channel URL like "https://hub.example.com/c/<id>" (from \`hooktap hub channel create\`), got ${
        show(url)
      }`,
    );
    ok = false;
  }
  if (token !== undefined && (typeof token !== "string" || token === "")) {
    issues.push(`hub.token must be the channel's token (a string like "htk_..."), got ${show(token)}`);
    ok = false;
  }
  if (!ok) return undefined;
  return { url: url as string, ...(typeof token === "string" ? { token } : {}) };
}
