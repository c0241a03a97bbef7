/**
 * Re-signing for `replayEvent(..., { resign })`: the providers' own signing
 * (src/providers/resign.ts) with the test's secret and the current time.
 * @module
 */
import { NO_SETTINGS, providerOf } from "../providers/examine.ts";
import { ResignError, resignRequest, viewOfRequest } from "../providers/resign.ts";

/** A request to sign afresh. */
export interface ResignInput {
  method: string;
  url: string;
  headers: readonly [string, string][];
  body: Uint8Array;
}

/** How to sign it. */
export interface ResignSettings {
  /** The secret the app under test verifies with. */
  secret: string;
  /** The provider, when the headers do not tell (they do for every built-in one). */
  provider?: string;
}

/**
 * The request's headers signed afresh with `settings.secret` at `now`.
 * @throws {Error} when no provider that hooktap can sign for is recognised, or it cannot be re-signed.
 */
export async function resignHeaders(
  request: ResignInput,
  settings: ResignSettings,
  now: Date,
): Promise<[string, string][]> {
  const provider = settings.provider ?? providerOf(viewOfRequest(request, now), NO_SETTINGS).name;
  try {
    return await resignRequest(provider, request, { ...NO_SETTINGS, secrets: [settings.secret] }, now);
  } catch (error) {
    if (!(error instanceof ResignError)) throw error;
    throw new Error(
      `replayEvent: cannot re-sign ${request.method} ${request.url} as ${provider}: ${error.message}. ` +
        "Pass `resign.provider`, or replay without `resign`.",
      { cause: error },
    );
  }
}
