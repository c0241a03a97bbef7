/**
 * Whether an app answered a provider's URL handshake the way the provider
 * requires: a 2xx alone does not pass it. Slack's `url_verification` wants
 * its `challenge` back (as the body, `{"challenge": ...}` or
 * `challenge=...`), Discord's PING a PONG (`{"type": 1}`), Zoom's
 * `endpoint.url_validation` `{plainToken, encryptedToken}` (the hex
 * HMAC-SHA256 of the token with the secret), Twitch's
 * `webhook_callback_verification` the raw challenge as the body, Meta's
 * verification GET (`hub.mode=subscribe`) `hub.challenge` as the whole body. A Discord
 * interaction (a command, a component, an autocomplete, a modal) an
 * interaction response of a type it takes (`{"type": 4, ...}`); a Slack
 * slash command, or an interactivity payload Slack takes the answer of, the
 * app's own answer (never `hooktap dev`'s queue 200). WebCrypto
 * only: `trigger` never loads node:crypto.
 * @module
 */
import { hmac, toHex, withWebCrypto } from "../providers/hmac.ts";
import { answersByApp, providerFacts } from "../providers/catalog.ts";

/** What was sent. */
export interface HandshakeRequest {
  headers: readonly [string, string][];
  body: Uint8Array;
  /** The query string sent (Meta's verification carries its challenge there), without `?`. */
  query?: string;
}

const decoder = new TextDecoder();

function _json(bytes: Uint8Array): unknown {
  return _jsonText(decoder.decode(bytes));
}

function _jsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function _object(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? v as Record<string, unknown> : undefined;
}

function _header(headers: readonly [string, string][], name: string): string | undefined {
  return headers.find(([k]) => k.toLowerCase() === name)?.[1];
}

function _slack(sent: Record<string, unknown>, answer: Uint8Array): string | undefined {
  if (sent.type !== "url_verification" || typeof sent.challenge !== "string") return undefined;
  const text = decoder.decode(answer).trim();
  const challenge = sent.challenge;
  if (text === challenge) return undefined;
  if (_object(_json(answer))?.challenge === challenge) return undefined;
  if (new URLSearchParams(text).get("challenge") === challenge) return undefined;
  return 'Slack\'s url_verification needs its challenge back (the body, {"challenge": ...} or ' +
    "challenge=...); the answer does not carry it, so Slack would not verify the URL";
}

function _discord(sent: Record<string, unknown>, status: number, answer: Uint8Array): string | undefined {
  // A webhook event (`event` present) of type 1 is an event, not an interaction's PING.
  if ("event" in sent) return undefined;
  if (sent.type === 0 && "application_id" in sent && !("token" in sent)) {
    // A webhook event PING: Discord asks for 204 and an empty body.
    if (status === 204 && answer.length === 0) return undefined;
    return "Discord's webhook event PING needs 204 with an empty body; the answer is not that, so Discord " +
      "would not accept the webhook events URL";
  }
  if (sent.type === 2 || sent.type === 3 || sent.type === 4 || sent.type === 5) {
    return _interaction(sent.type, answer);
  }
  if (sent.type !== 1) return undefined;
  if (_object(_json(answer))?.type === 1) return undefined;
  return 'Discord\'s PING needs a PONG back, {"type": 1}; the answer is not one, so Discord would not ' +
    "accept the interactions endpoint";
}

/**
 * The interaction callback types Discord takes in answer to each interaction type (2 APPLICATION_COMMAND,
 * 3 MESSAGE_COMPONENT, 4 APPLICATION_COMMAND_AUTOCOMPLETE, 5 MODAL_SUBMIT), from
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-response-object.
 */
const CALLBACKS: Readonly<Record<number, readonly number[]>> = {
  2: [4, 5, 9, 10, 12],
  3: [4, 5, 6, 7, 9, 10, 12],
  4: [8],
  5: [4, 5, 6, 7, 10],
};

const NAMES: Readonly<Record<number, string>> = {
  2: "APPLICATION_COMMAND",
  3: "MESSAGE_COMPONENT",
  4: "APPLICATION_COMMAND_AUTOCOMPLETE",
  5: "MODAL_SUBMIT",
};

/** An interaction is answered in the HTTP response itself: an interaction response of a type it takes. */
function _interaction(type: number, answer: Uint8Array): string | undefined {
  const got = _object(_json(answer))?.type;
  const allowed = CALLBACKS[type]!;
  if (typeof got === "number" && allowed.includes(got)) return undefined;
  const types = allowed.join("|");
  return `Discord's ${NAMES[type]} needs an interaction response back, {"type": ${types}, ...}; the answer ` +
    'is not one, so Discord would show "This interaction failed"';
}

async function _zoom(
  sent: Record<string, unknown>,
  answer: Uint8Array,
  secret: string | undefined,
): Promise<string | undefined> {
  if (sent.event !== "endpoint.url_validation") return undefined;
  const plainToken = _object(sent.payload)?.plainToken;
  if (typeof plainToken !== "string") return undefined;
  const got = _object(_json(answer));
  const expected = secret === undefined
    ? undefined
    : await withWebCrypto(() => toHex(hmac("sha256", secret, plainToken)));
  if (got?.plainToken === plainToken && (expected === undefined || got.encryptedToken === expected)) {
    return undefined;
  }
  return 'Zoom\'s endpoint.url_validation needs {"plainToken", "encryptedToken"} back, encryptedToken ' +
    "the hex HMAC-SHA256 of plainToken with the secret token; the answer is not that, so Zoom would not " +
    "validate the URL";
}

/** Meta's verification (a GET): the answer must be `hub.challenge`, whole. */
function _meta(request: HandshakeRequest, answer: Uint8Array): string | undefined {
  const params = new URLSearchParams(request.query ?? "");
  const challenge = params.get("hub.challenge");
  if (params.get("hub.mode") !== "subscribe" || challenge === null) return undefined;
  if (decoder.decode(answer) === challenge) return undefined;
  return "Meta's verification needs hub.challenge back as the whole body; the answer is not that, so Meta " +
    "would not verify the callback URL";
}

function _twitch(
  request: HandshakeRequest,
  sent: Record<string, unknown>,
  answer: Uint8Array,
): string | undefined {
  const type = _header(request.headers, "twitch-eventsub-message-type");
  if (type !== "webhook_callback_verification" || typeof sent.challenge !== "string") return undefined;
  if (decoder.decode(answer) === sent.challenge) return undefined;
  return "Twitch's webhook_callback_verification needs the raw challenge as the whole body; the answer is " +
    "not that, so Twitch would not enable the subscription";
}

/**
 * Whether `request` to `provider` is one the app itself must answer, with what only it knows (a Discord
 * interaction: a command, a component, an autocomplete, a modal; a Slack slash command, or an interactivity
 * payload whose answer Slack uses), rather than a URL handshake `hooktap dev` answers for it: dev's own 200
 * to it would reach the provider in place of the app's. Says what the provider does with the answer, or
 * `undefined`.
 */
export function answeredByApp(provider: string, request: HandshakeRequest): string | undefined {
  if (provider === "slack") return _slackByApp(request);
  if (provider !== "discord") return undefined;
  const sent = _object(_json(request.body));
  if (sent === undefined || "event" in sent || typeof sent.type !== "number" || !(sent.type in CALLBACKS)) {
    return undefined;
  }
  return `Discord's ${NAMES[sent.type]} needs an interaction response back`;
}

/** A Slack form whose answer Slack uses (its type as dev names it: `slash_command /deploy`, `view_submission`). */
function _slackByApp(request: HandshakeRequest): string | undefined {
  if (!/x-www-form-urlencoded/i.test(_header(request.headers, "content-type") ?? "")) return undefined;
  const form = new URLSearchParams(decoder.decode(request.body));
  const command = form.get("command");
  const type = command !== null
    ? `slash_command ${command}`
    : _object(_jsonText(form.get("payload") ?? ""))?.type;
  if (typeof type !== "string" || !answersByApp(providerFacts("slack"), type)) return undefined;
  return `Slack takes the answer to ${type} as your app's reply`;
}

/**
 * Why the app's 2xx answer (`status`, `answer` its body) to `request` fails `provider`'s handshake, or
 * `undefined` when it passes or `request` is no handshake. `secret` checks
 * Zoom's `encryptedToken` (without it, only its `plainToken`).
 */
export async function handshakeProblem(
  provider: string,
  request: HandshakeRequest,
  status: number,
  answer: Uint8Array,
  secret?: string,
): Promise<string | undefined> {
  if (provider === "meta") return _meta(request, answer);
  if (!["slack", "discord", "zoom", "twitch"].includes(provider)) return undefined;
  const sent = _object(_json(request.body));
  if (sent === undefined) return undefined;
  switch (provider) {
    case "slack":
      return _slack(sent, answer);
    case "discord":
      return _discord(sent, status, answer);
    case "zoom":
      return await _zoom(sent, answer, secret);
    default:
      return _twitch(request, sent, answer);
  }
}
