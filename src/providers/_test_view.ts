/**
 * Test helpers for provider tests: a view of a request and settings.
 * @module
 */
import { DEFAULT_TOLERANCE } from "./catalog.ts";
import { examineRequest } from "./examine.ts";
import type { ProviderSettings, RequestView } from "./types.ts";
import { createView } from "./view.ts";

/** A view of a request made in a test. */
export function testView(
  headers: Record<string, string> | [string, string][],
  body: string | Uint8Array,
  options: { method?: string; path?: string; query?: string; at?: Date } = {},
): RequestView {
  return createView({
    method: options.method ?? "POST",
    path: options.path ?? "/hook",
    query: options.query ?? "",
    headers: Array.isArray(headers) ? headers : Object.entries(headers),
    body: typeof body === "string" ? new TextEncoder().encode(body) : body,
    receivedAt: options.at ?? new Date(),
  });
}

/** Settings with defaults. */
export function testSettings(fields: Partial<ProviderSettings> = {}): ProviderSettings {
  return { secrets: [], tolerance: DEFAULT_TOLERANCE, enforce: false, ...fields };
}

/** The verdict status hooktap gives a request. */
export async function statusOf(
  headers: Record<string, string> | [string, string][],
  body: string,
  settings: Partial<ProviderSettings>,
  options: Parameters<typeof testView>[2] = {},
): Promise<{ provider?: string; status: string; reason?: string; type?: string }> {
  const r = await examineRequest(testView(headers, body, options), testSettings(settings));
  return {
    ...(r.provider ? { provider: r.provider } : {}),
    status: r.verdict.status,
    ...(r.verdict.reason ? { reason: r.verdict.reason } : {}),
    ...(r.type ? { type: r.type } : {}),
  };
}
