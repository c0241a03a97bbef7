/**
 * Microsoft Graph change notifications. The subscription check
 * (`POST ?validationToken=...`) is answered 200 `text/plain` with the
 * decoded token. Notifications carry no signature; their `clientState` is
 * compared with the endpoint's `secret` when one is set.
 * @module
 */
import type { Verdict } from "../../event/record.ts";
import { safeEqualText } from "../hmac.ts";
import type { Provider, RequestView } from "../types.ts";
import { isObject } from "../view.ts";

function _notifications(view: RequestView): Record<string, unknown>[] {
  const value = (view.json() as { value?: unknown } | undefined)?.value;
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** The Microsoft Graph provider. */
export const msgraph: Provider = {
  name: "msgraph",
  title: "Microsoft Graph",
  signatureHeaders: [],
  timestamped: false,
  detect: (view) =>
    (view.query.includes("validationToken=") && view.params().has("validationToken")) ||
    (/json/i.test(view.header("content-type") ?? "") &&
      typeof _notifications(view)[0]?.subscriptionId === "string"),
  eventType: (view) => {
    if (view.params().has("validationToken")) return "validation";
    const change = _notifications(view)[0]?.changeType;
    return typeof change === "string" ? change : undefined;
  },
  verify(view, settings): Verdict {
    const states = _notifications(view).map((n) => n.clientState);
    if (states.length === 0 || states.every((s) => s === undefined)) {
      return {
        status: "unsigned",
        scheme: "msgraph-clientstate",
        reason: "no clientState in the notification",
      };
    }
    if (settings.secrets.length === 0) {
      return {
        status: "no-secret",
        scheme: "msgraph-clientstate",
        reason: "set `secret` to the subscription's clientState to check it",
      };
    }
    const ok = states.every((s) =>
      typeof s === "string" && settings.secrets.some((k) => safeEqualText(s, k))
    );
    return ok ? { status: "valid", scheme: "msgraph-clientstate" } : {
      status: "invalid",
      scheme: "msgraph-clientstate",
      reason: "the secret is wrong: clientState differs from the configured secret",
    };
  },
  challenge(view) {
    const token = view.params().get("validationToken");
    if (token === null) return undefined;
    return { status: 200, headers: [["content-type", "text/plain; charset=utf-8"]], body: token };
  },
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = msgraph;
