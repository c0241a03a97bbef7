/**
 * What keeps the inspector to its own machine, its own user and its own
 * page: the `Host` check (DNS rebinding), the session token every API call
 * and the live stream must carry (in `x-hooktap-token`, `Authorization:
 * Bearer`, or the HttpOnly cookie the printed link sets), the same-origin
 * check (no other site, nor another port of this machine, may use a
 * browser's cookie), and the security headers of every answer. Pure.
 * @module
 */

/** The Content-Security-Policy of every answer: nothing inline, nothing remote. */
export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join("; ");

/** Headers every answer carries. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-resource-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
  "cache-control": "no-store",
};

/** The `Host` values the inspector on `port` answers to. */
export function allowedHosts(port: number): Set<string> {
  return new Set([`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]);
}

/** Whether the request's `Host` names this machine and the inspector's port. */
export function hostAllowed(request: Request, port: number): boolean {
  const host = request.headers.get("host")?.toLowerCase();
  return host !== undefined && allowedHosts(port).has(host);
}

/** The name of the cookie that carries the token of the inspector on `port` (cookies ignore ports). */
export function cookieName(port: number): string {
  return `hooktap_inspector_${port}`;
}

/** `Set-Cookie` for the token: script cannot read it, no other site sends it, it ends with the browser session. */
export function sessionCookie(port: number, token: string): string {
  return `${cookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}

/** Compares two strings in time that does not depend on where they differ. */
export function sameSecret(a: string, b: string): boolean {
  if (a.length !== b.length || b.length === 0) return false;
  let diff = 0;
  for (let i = 0; i < b.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The value of cookie `name` in the request, if any. */
function _cookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** A refusal: the status and the reason. */
export interface Refusal {
  status: 401 | 403;
  reason: string;
}

/**
 * Why a request to the API (or the live stream) is refused, or `undefined`:
 * it must carry the session token (a header, or the cookie the printed link
 * set); a request from a browser must come from the inspector's own page
 * (an `Origin` or `Sec-Fetch-Site` of anything else is refused, even with
 * the cookie, since browsers send cookies to every port of a host); a
 * state-changing one that relies on the cookie must show it comes from the
 * page (`Origin` or `Sec-Fetch-Site: same-origin`).
 */
export function accessProblem(
  request: Request,
  port: number,
  token: string,
  tokenFile?: string,
): Refusal | undefined {
  const origin = request.headers.get("origin");
  if (
    origin !== null &&
    !(origin.startsWith("http://") && allowedHosts(port).has(origin.slice(7).toLowerCase()))
  ) {
    return { status: 403, reason: `requests from the origin ${origin} may not use the inspector` };
  }
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") {
    return { status: 403, reason: `a ${site} request may not use the inspector` };
  }
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  const header = request.headers.get("x-hooktap-token") ?? bearer;
  if (header !== undefined && header !== null && sameSecret(header, token)) return undefined;
  const cookie = _cookie(request, cookieName(port));
  if (cookie !== undefined && sameSecret(cookie, token)) {
    if (request.method === "GET" || request.method === "HEAD" || origin !== null || site === "same-origin") {
      return undefined;
    }
    return { status: 403, reason: "send the page's Origin with a request that relies on the session cookie" };
  }
  return {
    status: 401,
    reason: "this inspector serves only the user who started it: open the link hooktap printed " +
      `(http://127.0.0.1:${port}/?token=...)` +
      (tokenFile === undefined ? "" : `, or send the token in ${tokenFile} as the x-hooktap-token header`),
  };
}
