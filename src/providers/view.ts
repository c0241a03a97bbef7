/**
 * Builds the {@linkcode RequestView} providers read, from a request's parts.
 * Everything derived (text, JSON, query) is computed on first use only, so
 * a request no provider claims costs nothing more. Pure.
 * @module
 */
import { formPayload } from "../event/form_type.ts";
import { headerValue } from "../event/record.ts";
import type { RequestView } from "./types.ts";
/** What a view is made of. */
export interface ViewParts {
  /** HTTP method. */
  method: string;
  /** URL path, percent-encoding kept. */
  path: string;
  /** Raw query string without `?`. */
  query: string;
  /** Headers as received, in order. */
  headers: readonly [string, string][];
  /** The exact body bytes. */
  body: Uint8Array;
  /** When it arrived. */
  receivedAt: Date;
  /**
   * The body already decoded as UTF-8 with its BOM kept (the record's `body`
   * when its encoding is `utf8`): {@linkcode RequestView.text} then decodes
   * nothing again. Absent when the body is not valid UTF-8.
   */
  bodyText?: string;
  /**
   * What came before `path` in the URL the sender called and the receiver no longer sees: `/c/<channel>`
   * for an event a hub received (the hub routes by the path after it). Twilio signs that whole URL.
   */
  pathPrefix?: string;
}

const decoder = new TextDecoder();

/**
 * A lazily-derived view of a request, for `examineRequest` (examine.ts).
 *
 * @example
 * ```ts
 * import { createView } from "@hooktap/hooktap/testing";
 * const view = createView({
 *   method: "POST", path: "/hook", query: "", headers: [["x-github-event", "push"]],
 *   body: new TextEncoder().encode('{"ref":"main"}'), receivedAt: new Date(),
 * });
 * console.log(view.header("X-GitHub-Event"), view.json()); // push { ref: "main" }
 * ```
 */
export function createView(parts: ViewParts): RequestView {
  // The decoder drops a leading BOM; the record's text keeps it.
  let text: string | undefined = parts.bodyText?.charCodeAt(0) === 0xfeff
    ? parts.bodyText.slice(1)
    : parts.bodyText;
  let json: { value: unknown } | undefined;
  let params: URLSearchParams | undefined;
  const view: RequestView = {
    ...parts,
    header: (name) => headerValue(parts.headers, name),
    text: () => (text ??= decoder.decode(parts.body)),
    json: () => {
      if (json === undefined) {
        try {
          json = { value: JSON.parse(view.text()) };
        } catch {
          // A form-encoded delivery (GitHub's, Slack's interactivity) carries its JSON in `payload`.
          json = { value: formPayload(headerValue(parts.headers, "content-type"), view.text()) };
        }
      }
      return json.value;
    },
    params: () => (params ??= new URLSearchParams(parts.query)),
    publicUrl: () => publicUrl(parts),
  };
  return view;
}

/**
 * The URL the sender called: scheme and host from `X-Forwarded-Proto` /
 * `X-Forwarded-Host` (set by ngrok, cloudflared and most proxies) or
 * `Host`; `https` unless the host is local.
 */
export function publicUrl(parts: Pick<ViewParts, "headers" | "path" | "query" | "pathPrefix">): string {
  const first = (name: string) => headerValue(parts.headers, name)?.split(",")[0]?.trim() || undefined;
  const host = first("x-forwarded-host") ?? first("host") ?? "localhost";
  const local = /^(localhost|127\.|\[::1\])/.test(host);
  const proto = first("x-forwarded-proto") ?? (local ? "http" : "https");
  return `${proto}://${host}${parts.pathPrefix ?? ""}${parts.path}${
    parts.query === "" ? "" : `?${parts.query}`
  }`;
}

/** Whether a value is a plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A string field of the JSON body, or `undefined`. */
export function jsonString(view: RequestView, ...path: string[]): string | undefined {
  let at: unknown = view.json();
  for (const key of path) {
    if (!isObject(at)) return undefined;
    at = at[key];
  }
  return typeof at === "string" ? at : undefined;
}
