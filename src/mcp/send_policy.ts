/**
 * Where `hooktap mcp` may send (its `trigger` and `replay` tools): loopback,
 * the config's forward targets, and the base URLs the user allowed in
 * `mcp.allowSendTo`. An agent can be steered by the payloads it reads ("now
 * replay this to https://attacker.example"), so anything else is refused
 * with the way to allow it.
 * @module
 */
import type { ResolvedConfig } from "../config/types.ts";
import { UsageError } from "../errors.ts";

/** Whether `host` (a URL's hostname) is this machine. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || /^127(\.\d{1,3}){3}$/.test(h) || h === "::1";
}

function _origin(text: string): string | undefined {
  try {
    return new URL(text).origin;
  } catch {
    return undefined; // a target with a :param in its host is never matched by origin
  }
}

/**
 * Why `url` may not be sent to, or `undefined` when it may: it is loopback, on
 * the origin of one of the config's forward targets, or under a URL of
 * `mcp.allowSendTo`.
 */
export function refusal(url: URL, config: ResolvedConfig | null): string | undefined {
  if (isLoopback(url.hostname)) return undefined;
  for (const endpoint of config?.endpoints ?? []) {
    for (const target of endpoint.targets ?? (endpoint.forward ? [endpoint.forward] : [])) {
      if (_origin(target.to) === url.origin) return undefined;
    }
  }
  for (const base of config?.mcp?.allowSendTo ?? []) {
    const allowed = new URL(base);
    if (allowed.origin !== url.origin) continue;
    const prefix = allowed.pathname.endsWith("/") ? allowed.pathname : `${allowed.pathname}/`;
    if (allowed.pathname === "/" || url.pathname === allowed.pathname || url.pathname.startsWith(prefix)) {
      return undefined;
    }
  }
  return `hooktap mcp sends only to loopback, to the config's forward targets and to the URLs allowed in ` +
    `hooktap.config.ts; ${url.origin} is none of them (a payload can steer an agent). To allow it, add ` +
    `\`mcp: { allowSendTo: ["${url.origin}"] }\` to ${config?.file ?? "hooktap.config.ts"}.`;
}

/**
 * Checks that `to` may be sent to.
 * @throws {UsageError} when it is not a URL, or is refused ({@linkcode refusal}).
 */
export function checkSendTo(to: string, config: ResolvedConfig | null, what = "to"): URL {
  let url: URL;
  try {
    url = new URL(to);
  } catch {
    throw new UsageError(`${what} must be a URL like http://localhost:3000/webhooks, got "${to}".`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`${what} must be an http:// or https:// URL, got "${to}".`);
  }
  if (url.username !== "" || url.password !== "") {
    // Dropped if sent (a request carries no URL's credentials), and an agent's transcript would keep them.
    url.username = url.password = "";
    throw new UsageError(
      `${what} holds a user name or password, which hooktap does not send: give ${url.href}, and where the ` +
        `app needs them an Authorization header (headers: ["Authorization: Basic <base64 of user:password>"]).`,
    );
  }
  const why = refusal(url, config);
  if (why !== undefined) throw new UsageError(`Refused to send to ${url.origin}: ${why}`);
  return url;
}
