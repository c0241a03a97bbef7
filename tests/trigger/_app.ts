/**
 * A loopback app that checks each delivery the way a real handler does:
 * with the provider's official library where one exists, and with
 * hooktap's own verdict. Answers 200 when both accept, 401 otherwise, and
 * keeps what it saw.
 * @module
 */
import { verify as githubVerify } from "@octokit/webhooks-methods";
import { EventWebhook } from "@sendgrid/eventwebhook";
import { verifyKey } from "discord-interactions";
import { Webhook as StandardWebhook } from "standardwebhooks";
import Stripe from "stripe";
import { Webhook as SvixWebhook } from "svix";
import twilioLib from "twilio";
import { examineRequest } from "../../src/providers/examine.ts";
import type { GenericHmacSettings, ProviderSettings } from "../../src/providers/types.ts";
import { createView } from "../../src/providers/view.ts";

/** What the app saw of one request. */
export interface Seen {
  provider: string;
  headers: [string, string][];
  body: Uint8Array;
  /** The official library's answer: true, false, or null when there is none. */
  library: boolean | null;
  /** hooktap's verdict. */
  verdict: string;
  reason?: string;
  type?: string;
}

/** How the app checks. */
export interface AppKeys {
  secret: string;
  publicKeys: Record<string, string>;
  hmac?: GenericHmacSettings;
  /** Meta's verify token: its verification GET (unsigned, as Meta sends it) is answered when it carries it. */
  verifyToken?: string;
}

const stripe = new Stripe("sk_test_hooktap");

async function _library(
  provider: string,
  url: string,
  headers: Headers,
  body: Uint8Array,
  keys: AppKeys,
): Promise<boolean | null> {
  const text = new TextDecoder().decode(body);
  const h = (n: string) => headers.get(n) ?? "";
  try {
    switch (provider) {
      case "github":
        return await githubVerify(keys.secret, text, h("x-hub-signature-256"));
      case "stripe":
        await stripe.webhooks.constructEventAsync(text, h("stripe-signature"), keys.secret);
        return true;
      case "standard-webhooks": {
        const obj = Object.fromEntries(headers);
        if (headers.has("svix-id")) new SvixWebhook(keys.secret).verify(text, obj);
        else new StandardWebhook(keys.secret).verify(text, obj);
        return true;
      }
      case "twilio": {
        const params = Object.fromEntries(new URLSearchParams(text));
        return twilioLib.validateRequest(keys.secret, h("x-twilio-signature"), url, params);
      }
      case "discord":
        return await verifyKey(
          text,
          h("x-signature-ed25519"),
          h("x-signature-timestamp"),
          keys.publicKeys.discord!,
        );
      case "sendgrid": {
        const lib = new EventWebhook();
        const key = lib.convertPublicKeyToECDSA(keys.publicKeys.sendgrid!);
        return lib.verifySignature(
          key,
          text,
          h("x-twilio-email-event-webhook-signature"),
          h("x-twilio-email-event-webhook-timestamp"),
        );
      }
      default:
        return null;
    }
  } catch {
    return false;
  }
}

/** Starts the app on a free loopback port; `provider` is read from the path (`/github`). */
export function startApp(keys: AppKeys): { url: string; seen: Seen[] } & AsyncDisposable {
  const seen: Seen[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = new Uint8Array(await req.arrayBuffer());
    const url = new URL(req.url);
    const provider = url.pathname.slice(1);
    // Meta's verification GET is unsigned by Meta itself: no library nor signature judges it, its token does.
    const unsignedHandshake = provider === "meta" && url.searchParams.get("hub.mode") === "subscribe";
    const library = unsignedHandshake ? null : await _library(provider, req.url, req.headers, body, keys);
    const settings: ProviderSettings = {
      provider,
      secrets: [keys.secret],
      tolerance: 300,
      enforce: false,
      ...(keys.publicKeys[provider] !== undefined && provider !== "standard-webhooks"
        ? { publicKey: keys.publicKeys[provider] }
        : {}),
      ...(provider === "hmac" && keys.hmac ? { hmac: keys.hmac } : {}),
      ...(keys.verifyToken !== undefined ? { verifyToken: keys.verifyToken } : {}),
    };
    const view = createView({
      method: req.method,
      path: url.pathname,
      query: url.search.slice(1),
      headers: [...req.headers],
      body,
      receivedAt: new Date(),
    });
    const result = await examineRequest(view, settings);
    seen.push({
      provider,
      headers: [...req.headers],
      body,
      library,
      verdict: result.verdict.status,
      ...(result.verdict.reason ? { reason: result.verdict.reason } : {}),
      ...(result.type ? { type: result.type } : {}),
    });
    const ok = unsignedHandshake
      ? result.challenge?.status === 200
      : library !== false && result.verdict.status === "valid";
    // A URL handshake (Slack's url_verification, Discord's PING, Zoom's url_validation, Twitch's challenge)
    // is answered as the provider asks, as a real app does: trigger judges that answer, not a bare 2xx.
    if (ok && result.challenge !== undefined) {
      const { status, headers, body: answer } = result.challenge;
      return new Response(status === 204 ? null : answer, { status, headers });
    }
    // A Discord interaction is answered with an interaction response, as a real app does (trigger judges it):
    // autocomplete with its choices, any other with a message.
    if (ok && provider === "discord") {
      const type = (JSON.parse(new TextDecoder().decode(body)) as { type?: number }).type;
      return Response.json(
        type === 4 ? { type: 8, data: { choices: [] } } : { type: 4, data: { content: "ok" } },
      );
    }
    return new Response(ok ? "ok" : `rejected: ${result.verdict.reason ?? "library"}`, {
      status: ok ? 200 : 401,
    });
  });
  const addr = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${addr.port}`,
    seen,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}
