/**
 * Event types of form-encoded deliveries. GitHub can send a webhook as
 * `application/x-www-form-urlencoded` with the JSON in a `payload` field
 * (Slack's interactivity does the same); the action is inside that JSON. Events
 * stored before this was read were typed with the event name alone
 * (`issues`); {@linkcode formTypeFix} types them right when the log is read,
 * without rewriting it. Pure.
 * @module
 */

/** Providers whose type is `<event>.<action>` with the action in a form body's `payload` JSON. */
const ACTION_IN_PAYLOAD = new Set(["github"]);

/** The JSON of a form body's `payload` field, or `undefined`. */
export function formPayload(contentType: string | undefined, text: string): unknown {
  if (contentType === undefined || !/^\s*application\/x-www-form-urlencoded/i.test(contentType)) {
    return undefined;
  }
  const payload = new URLSearchParams(text).get("payload");
  if (payload === null) return undefined;
  try {
    return JSON.parse(payload);
  } catch {
    return undefined;
  }
}

/**
 * The right type of a stored event whose type was read from a form body's
 * name alone, or `undefined` when it is right already. Cheap for every
 * other event: it looks at the provider and type first.
 */
export function formTypeFix(
  event: {
    provider?: string;
    type?: string;
    headers: readonly [string, string][];
    body: string;
    bodyEncoding: string;
  },
): string | undefined {
  if (event.type === undefined || event.provider === undefined || event.type.includes(".")) return undefined;
  if (!ACTION_IN_PAYLOAD.has(event.provider) || event.bodyEncoding !== "utf8") return undefined;
  const contentType = event.headers.find(([n]) => n.toLowerCase() === "content-type")?.[1];
  const json = formPayload(contentType, event.body) as { action?: unknown } | undefined;
  return typeof json?.action === "string" ? `${event.type}.${json.action}` : undefined;
}
