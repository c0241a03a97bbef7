/**
 * The seam to the providers' re-signing (`resignRequest` in src/provider/,
 * built in parallel). It is loaded on first use, so this build works
 * without it: `replayEvent(..., { resign })` then says re-signing is not
 * available rather than sending a request that cannot verify.
 * @module
 */

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

/** The providers' function, as this seam calls it. */
type ResignFn = (
  request: ResignInput,
  settings: ResignSettings,
  now: Date,
) => [string, string][] | undefined | Promise<[string, string][] | undefined>;

/** Module of the providers issue that exports `resignRequest`. */
const PROVIDERS_MODULE = "../provider/resign.ts";

let loaded: Promise<ResignFn | undefined> | undefined;

function load(): Promise<ResignFn | undefined> {
  loaded ??= import(PROVIDERS_MODULE).then(
    (m: { resignRequest?: ResignFn }) => m.resignRequest,
    () => undefined,
  );
  return loaded;
}

/**
 * The request's headers signed afresh with `settings.secret` at `now`.
 * @throws {Error} when re-signing is not in this build, or the request's scheme cannot be re-signed.
 */
export async function resignHeaders(
  request: ResignInput,
  settings: ResignSettings,
  now: Date,
): Promise<[string, string][]> {
  const resign = await load();
  if (resign === undefined) {
    throw new Error(
      "replayEvent: re-signing needs hooktap's providers (src/provider/resign.ts), which this build does " +
        "not have. Replay without `resign`, or update hooktap.",
    );
  }
  const headers = await resign(request, settings, now);
  if (headers === undefined) {
    throw new Error(
      `replayEvent: cannot re-sign ${request.method} ${request.url}: no provider that hooktap can sign for ` +
        "was recognised in its headers. Pass `resign.provider`, or replay without `resign`.",
    );
  }
  return headers;
}
