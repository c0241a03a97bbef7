/**
 * Refuses a forward target that is hooktap's own receiver (every event
 * delivered there would be stored and forwarded again, for ever) or its own
 * inspector (every delivery would be refused there, and the app meant to
 * listen on that port could not). Pure.
 * @module
 */

const LOCAL = /^(localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|::1?|\[::1?\]|::ffff:127\.0\.0\.1)$/i;

/** A socket of hooktap's own: its receiver, or its inspector (always on 127.0.0.1). */
export interface OwnSocket {
  hostname: string;
  port: number;
  /** @default "receiver" */
  what?: "receiver" | "inspector";
}

/** The port `to` names (its scheme's default when it names none). */
function portOf(url: URL): number {
  return url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
}

/** The port of a target on this machine (a local name: localhost, 127.x, ::1), or `undefined`. */
export function localPort(to: string): number | undefined {
  const url = new URL(to);
  return LOCAL.test(url.hostname.replace(/^\[|\]$/g, "")) ? portOf(url) : undefined;
}

/**
 * Why `to` would loop back into hooktap's own socket bound on `hostname:port`, or `undefined` when it does
 * not.
 */
export function loopProblem(to: string, own: OwnSocket): string | undefined {
  const url = new URL(to);
  const port = portOf(url);
  if (port !== own.port) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const bound = own.hostname.replace(/^\[|\]$/g, "");
  const wildcard = bound === "0.0.0.0" || bound === "::";
  const same = host === bound || (LOCAL.test(host) && (LOCAL.test(bound) || wildcard));
  if (!same) return undefined;
  if (own.what === "inspector") {
    return `forward target ${to} and hooktap's inspector both use port ${port}: your app cannot listen ` +
      `there while the inspector does, and every delivery would be refused. Point the target at your ` +
      `app's port, or give the inspector another one with --ui-port (or \`ui: { port }\` in ` +
      `hooktap.config.ts).`;
  }
  return `forward target ${to} is hooktap's own receiver (port ${port}): every event would be forwarded ` +
    `back to itself. Point it at your app (like http://localhost:3000/webhook), or run hooktap on another ` +
    `port with --port.`;
}
