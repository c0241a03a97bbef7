/**
 * The URL a captured request was sent to, as the sender saw it: the `Host`
 * header (the tunnel's host when tunnelled), `X-Forwarded-Proto` or http.
 * @module
 */
import { type CapturedEvent, headerValue } from "../event/record.ts";

/** The original URL of `event`. */
export function originalUrl(event: Pick<CapturedEvent, "headers" | "path" | "query">): string {
  const host = headerValue(event.headers, "host") ?? "localhost";
  const proto = headerValue(event.headers, "x-forwarded-proto")?.split(",")[0]?.trim();
  const scheme = proto === "https" ? "https" : "http";
  return `${scheme}://${host}${event.path}${event.query === "" ? "" : `?${event.query}`}`;
}
