/**
 * What keeps the inspector to its own machine and its own page: the `Host`
 * check (DNS rebinding), the same-origin check for state-changing calls
 * (replay), and the security headers of every answer. Pure.
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

/**
 * Why a state-changing request is refused, or `undefined` when it may go on:
 * a browser's request must come from the inspector's own page (`Origin` or
 * `Sec-Fetch-Site: same-origin`); a script without them must carry the
 * session's token in `x-hooktap-token`.
 */
export function sameOriginProblem(request: Request, port: number, token: string): string | undefined {
  const origin = request.headers.get("origin");
  if (origin !== null) {
    const ok = origin.startsWith("http://") && allowedHosts(port).has(origin.slice(7).toLowerCase());
    return ok ? undefined : `requests from the origin ${origin} may not replay events`;
  }
  if (request.headers.get("sec-fetch-site") === "same-origin") return undefined;
  if (request.headers.get("x-hooktap-token") === token) return undefined;
  return "send the page's Origin, or the session token in x-hooktap-token (it is in the page's " +
    '<meta name="hooktap-token">)';
}
