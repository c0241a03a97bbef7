/**
 * Whether a received event's payload matches its provider's published
 * schema, for `inspect`: warn-only, the first few differences. The provider's
 * schema is loaded only here, and only for a provider that has a hook.
 * @module
 */
import { type Difference, differences } from "../schema/validate.ts";
import { PAYLOAD_SCHEMAS, type SchemaHook } from "./schemas.ts";

/** What the check found. */
export interface SchemaCheck {
  /** Where the schema comes from (`@octokit/openapi-webhooks@12.1.0`). */
  source: string;
  /** The event type checked. */
  type: string;
  /** Whether the payload matches the schema. */
  matches: boolean;
  /** The first differences (at most `max`), when it does not. */
  differences: Difference[];
}

/** What is checked of an event. */
export interface CheckInput {
  provider?: string | undefined;
  type?: string | undefined;
  /** The body, decoded. */
  body: Uint8Array;
  /** The request's content type (GitHub may send its JSON as a form field `payload`). */
  contentType?: string | undefined;
}

function _payload(input: CheckInput): unknown {
  let text = new TextDecoder().decode(input.body);
  if (/^application\/x-www-form-urlencoded\b/i.test(input.contentType ?? "")) {
    const field = new URLSearchParams(text).get("payload");
    if (field === null) return undefined;
    text = field;
  }
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The schema check of an event, or undefined when there is nothing to check against: its provider publishes
 * no schema (or none for its type), or the body is not JSON.
 */
export async function checkSchema(
  input: CheckInput,
  { max = 5, hooks = PAYLOAD_SCHEMAS }: {
    /** How many differences to keep. @default 5 */
    max?: number;
    /** The providers' schema hooks. @default PAYLOAD_SCHEMAS */
    hooks?: Readonly<Record<string, SchemaHook>>;
  } = {},
): Promise<SchemaCheck | undefined> {
  const hook = input.provider === undefined ? undefined : hooks[input.provider];
  if (hook === undefined || input.type === undefined) return undefined;
  const payload = _payload(input);
  if (payload === undefined) return undefined;
  const schema = await hook();
  const wanted = await schema.schemaOf(input.type);
  if (wanted === undefined) return undefined;
  const found = differences(payload, wanted.schema, wanted.root, max);
  return { source: schema.source, type: input.type, matches: found.length === 0, differences: found };
}
