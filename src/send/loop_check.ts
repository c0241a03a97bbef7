/**
 * Refuses a forward target that is hooktap's own receiver: every event
 * delivered there would be stored and forwarded again, for ever. Pure.
 * @module
 */

const LOCAL = /^(localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|::1?|\[::1?\]|::ffff:127\.0\.0\.1)$/i;

/**
 * Why `to` would loop back into the receiver bound on `hostname:port`, or
 * `undefined` when it does not.
 */
export function loopProblem(to: string, receiver: { hostname: string; port: number }): string | undefined {
  const url = new URL(to);
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  if (port !== receiver.port) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const bound = receiver.hostname.replace(/^\[|\]$/g, "");
  const wildcard = bound === "0.0.0.0" || bound === "::";
  const same = host === bound || (LOCAL.test(host) && (LOCAL.test(bound) || wildcard));
  if (!same) return undefined;
  return `forward target ${to} is hooktap's own receiver (port ${port}): every event would be forwarded ` +
    `back to itself. Point it at your app (like http://localhost:3000/webhook), or run hooktap on another ` +
    `port with --port.`;
}
