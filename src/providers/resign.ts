/**
 * Re-signing a request for its target: a replay of an old event, a replay
 * with a changed body, a forward retry after the tolerance. Uses the
 * provider's own signing with the endpoint's first secret and `now`.
 * @module
 */
import { examineRequest } from "./examine.ts";
import { providerNamed } from "./registry.ts";
import type { ProviderSettings, RequestView, ResignRequest } from "./types.ts";
import { createView } from "./view.ts";

/** Why a request cannot be re-signed. */
export class ResignError extends Error {
  /** The error's name. */
  override name = "ResignError";
}

/**
 * The headers of `request` with a fresh signature of `provider`'s scheme.
 * @throws {ResignError} when the provider is unknown, does not sign with a
 *   shared secret, or no secret is configured.
 *
 * @example
 * ```ts
 * import { resignRequest } from "@hooktap/hooktap/testing";
 * const headers = await resignRequest("stripe", {
 *   method: "POST", url: "http://localhost:3000/hook", headers: [], body: new TextEncoder().encode("{}"),
 * }, { secrets: ["whsec_test"], tolerance: 300, enforce: false });
 * console.log(headers.find(([k]) => k === "Stripe-Signature")?.[1].startsWith("t=")); // true
 * ```
 */
export async function resignRequest(
  provider: string,
  request: ResignRequest,
  settings: ProviderSettings,
  now: Date = new Date(),
): Promise<[string, string][]> {
  const p = providerNamed(provider);
  if (p === undefined) throw new ResignError(`hooktap does not know the provider "${provider}"`);
  if (p.resign === undefined) {
    throw new ResignError(
      `${p.title} signs with the sender's private key; only ${p.title} can sign a request`,
    );
  }
  if (settings.secrets.length === 0) {
    throw new ResignError(`no secret is configured for ${p.title}: add \`secret\` to the endpoint`);
  }
  return await p.resign(request, settings, now);
}

/** Whether `headers` and `body` verify for `provider` at `now` (a check after re-signing). */
export async function verifiesNow(
  provider: string,
  request: ResignRequest,
  settings: ProviderSettings,
  now: Date = new Date(),
): Promise<boolean> {
  const result = await examineRequest(viewOfRequest(request, now), { ...settings, provider });
  return result.verdict.status === "valid";
}

/** A request to send, seen as the providers see a received one (at `now`). */
export function viewOfRequest(request: ResignRequest, now: Date): RequestView {
  const url = new URL(request.url);
  return createView({
    method: request.method,
    path: url.pathname,
    query: url.search.slice(1),
    headers: request.headers,
    body: request.body,
    receivedAt: now,
  });
}
