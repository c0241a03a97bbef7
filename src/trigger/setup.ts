/**
 * What a trigger needs before it builds anything, for `hooktap trigger` and
 * the mcp `trigger` tool alike: where it goes (`to`, else the running dev's
 * endpoint for the provider), the endpoint whose secret, `hmac` scheme or
 * trusted key signs it, hooktap's own key pair for the senders that sign with
 * one, and the warnings a user needs (a mismatched provider, a key the
 * endpoint does not trust, an unsigned send), worded without a flag so each
 * caller names its own option.
 * @module
 */
import { lazyImport } from "../cli/lazy.ts";
import type { Endpoint, ResolvedConfig } from "../config/types.ts";
import { CATALOG } from "../providers/catalog.ts";
import { KEYED_PROVIDERS } from "../providers/signing.ts";
import type { GenericHmacSettings } from "../providers/types.ts";
import type { StorePaths } from "../store/paths.ts";
import type { TriggerKeys } from "./keys.ts";
import { signingMode } from "./sign.ts";

// Finding dev and hooktap's key pair are imported when a trigger needs them: `--to URL --secret S` needs
// neither, and its start-up reads fewer modules (issue 36).
const devTarget = () => lazyImport<typeof import("./dev_target.ts")>("src/trigger/dev_target.ts");
const devLock = () => lazyImport<typeof import("../store/read/dev_lock.ts")>("src/store/read/dev_lock.ts");
const triggerKeys = () => lazyImport<typeof import("./keys.ts")>("src/trigger/keys.ts");
// The built-in starter config, which a dev started without a config file serves.
const configLoader = () => lazyImport<typeof import("../config/load.ts")>("src/config/load.ts");

/** What {@linkcode setUpTrigger} takes. */
export interface SetupInput {
  config: ResolvedConfig | null;
  /** The canonical provider. */
  provider: string;
  /** The endpoint asked for by name, if any. */
  endpoint?: string | undefined;
  /** Where to send, if not into the running dev. */
  to?: string | undefined;
  /** A secret given for this send, over the endpoint's. */
  secret?: string | undefined;
  /** The store's paths, asked for only when dev or hooktap's key pair is needed (`--to URL --secret S` needs neither). */
  paths: () => Promise<StorePaths>;
  /** The error when no dev runs and no `to` was given. */
  noDev: () => Error;
  /** How the caller names the secret option in a warning: `--secret`, `secret`. */
  secretOption: string;
  /**
   * Whether a loopback `to` is looked up as dev's own URL (dev's lock read: ~5 ms of a one-shot command), for
   * a fault dev's verdict judges. @default true
   */
  askDevUrl?: boolean;
  /**
   * Every request of this trigger is one the provider sends unsigned (the catalog's `unsignedEvents`: Meta's
   * verification GET): no warning of a missing secret, which would sign nothing; one of a missing
   * `verifyToken`, which it carries. @default false
   */
  unsigned?: boolean;
}

/** What {@linkcode setUpTrigger} found. */
export interface TriggerSetup {
  to: string;
  /** The endpoint whose settings sign it (none when none applies). */
  endpoint?: Endpoint;
  /** What signs it, and the endpoint's `verifyToken` (Meta's verification request carries it). */
  material: { secret?: string; hmac?: GenericHmacSettings; verifyToken?: string };
  keys?: TriggerKeys;
  /** hooktap's key pair signs it: the public key the app must trust, its kind, whether it was made now. */
  key?: { publicKey: string; kind: string; created: boolean };
  /** Plain sentences, without "warning:". */
  warnings: string[];
  /**
   * It goes into the `hooktap dev` running here: no `to`, or a `to` that is dev's own URL (loopback, its
   * port). dev answers 200 whatever the signature, so its verdict judges a fault.
   */
  intoDev: boolean;
}

/** The port of `to` when it names this machine over http (it may be dev's own URL), else `undefined`. */
function _loopbackPort(to: string): number | undefined {
  let url: URL;
  try {
    url = new URL(to);
  } catch {
    return undefined;
  }
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const loopback = host === "localhost" || /^127(\.\d{1,3}){3}$/.test(host) || host === "::1";
  return url.protocol === "http:" && loopback ? Number(url.port || 80) : undefined;
}

/**
 * The endpoint whose exact path `to` names, when it has a secret and declares no other provider (`to`
 * pointed at dev's own URL for it): its secret signs, as naming the endpoint would.
 */
function endpointAt(config: ResolvedConfig, to: string): Endpoint | undefined {
  let path: string;
  try {
    path = new URL(to).pathname;
  } catch {
    return undefined;
  }
  return config.endpoints.find((e) =>
    e.path === path && (e.signing?.secrets.length ?? 0) > 0 && e.signing?.provider === undefined
  );
}

function unsignedText(provider: string, secretOption: string): string {
  return provider === "msgraph"
    ? "sending without a clientState: Microsoft Graph carries the subscription's clientState in the body; " +
      `give ${secretOption}, or set \`secret\` on the endpoint in hooktap.config.ts`
    : provider === "hmac"
    ? "sending unsigned: the generic HMAC scheme is described by an endpoint's `hmac` config; add `hmac` " +
      "and `secret` to the endpoint (hooktap.config.ts), or name an endpoint that has them"
    : `sending unsigned: no secret for ${
      CATALOG[provider]?.title
    }; give ${secretOption}, or set \`secret\` ` +
      "on the endpoint in hooktap.config.ts";
}

/** Where a trigger goes and what signs it. @throws the caller's `noDev()` error when nothing can take it. */
export async function setUpTrigger(input: SetupInput): Promise<TriggerSetup> {
  const { config, provider } = input;
  let to = input.to;
  let endpoint: Endpoint | undefined;
  let intoDev = to === undefined;
  if (to === undefined) {
    const { endpointFor, endpointUrl } = await devTarget();
    const dev = await (await devLock()).runningDev(await input.paths());
    if (dev === undefined) throw input.noDev();
    // No config file: the dev running here serves the built-in starter config (POST /webhook), as it
    // would once `hooktap init --yes` wrote it.
    endpoint = endpointFor(config ?? (await configLoader()).starterConfig(), provider, input.endpoint);
    to = endpointUrl(endpoint, dev.port, provider);
  } else {
    // Only a loopback URL can be dev's own: any other needs no look at the store (`--to URL --secret S`).
    const port = input.askDevUrl === false ? undefined : _loopbackPort(to);
    intoDev = port !== undefined && (await (await devLock()).runningDev(await input.paths()))?.port === port;
  }
  if (input.to !== undefined && config !== null) {
    endpoint = input.endpoint !== undefined
      ? (await devTarget()).endpointFor(config, provider, input.endpoint)
      : config.endpoints.find((e) => e.signing?.provider === provider) ?? endpointAt(config, to);
  }
  const warnings: string[] = [];
  const title = CATALOG[provider]?.title ?? provider;
  const signing = endpoint?.signing;
  if (signing?.provider !== undefined && signing.provider !== provider) {
    // Through dev, the endpoint judges the delivery; with --to it goes to that URL, and the endpoint only
    // lends its secret (when no --secret is given).
    warnings.push(
      input.to === undefined
        ? `endpoint "${endpoint!.name}" declares provider ${signing.provider}, so it will check this ` +
          `${title} delivery as ${signing.provider} and find it invalid.`
        : `endpoint "${endpoint!.name}" is a ${signing.provider} endpoint, not a ${title} one` +
          (input.secret === undefined && signing.secrets.length > 0
            ? `: this ${title} delivery to ${to} is signed with its secret.`
            : "."),
    );
  }
  const secret = input.secret ?? signing?.secrets[0];
  const material = {
    ...(secret !== undefined ? { secret } : {}),
    ...(signing?.hmac !== undefined ? { hmac: signing.hmac } : {}),
    ...(signing?.verifyToken !== undefined ? { verifyToken: signing.verifyToken } : {}),
  };
  const setup: TriggerSetup = { to, ...(endpoint ? { endpoint } : {}), material, warnings, intoDev };
  if (signingMode(provider, material) === "none" && KEYED_PROVIDERS.has(provider)) {
    const { loadTriggerKeys, publicKeyFor } = await triggerKeys();
    const loaded = await loadTriggerKeys((await input.paths()).dir);
    setup.keys = loaded.keys;
    const publicKey = publicKeyFor(provider, loaded.keys)!;
    const kind = CATALOG[provider]?.keyPair?.kind === "p256" ? "ECDSA P-256" : "Ed25519";
    setup.key = { publicKey, kind, created: loaded.created };
    if (signing?.publicKey !== undefined && signing.publicKey !== publicKey) {
      warnings.push(
        `endpoint "${endpoint!.name}" has its own publicKey, so its verdict will be invalid: only ${title} ` +
          `holds that key's private half. Set publicKey to "${publicKey}" while you trigger.`,
      );
    }
  }
  if (input.unsigned) {
    if (material.verifyToken === undefined) {
      warnings.push(
        `sending an empty verify token: ${title}'s verification carries the endpoint's \`verifyToken\`, and ${
          endpoint === undefined
            ? "no endpoint in hooktap.config.ts takes this URL"
            : `endpoint "${endpoint.name}" has none`
        }; your app refuses it unless it expects none: set \`verifyToken\` on the endpoint (the token your app ` +
          "checks)",
      );
    }
  } else if (signingMode(provider, { ...material, ...(setup.keys ? { keys: setup.keys } : {}) }) === "none") {
    // The endpoint sets `secret: Deno.env.get(...)` and the variable is unset here (config validation said
    // so): the fix is the variable in this shell (dev may well have it in its own), not a `secret` to add.
    const unset = endpoint !== undefined &&
      config?.warnings.some((w) => w.startsWith(`endpoint "${endpoint!.name}": its secret is empty`));
    warnings.push(
      unset
        ? `sending unsigned: endpoint "${
          endpoint!.name
        }" sets \`secret\` from an environment variable that is ` +
          `not set where this runs; set it here (as for dev), or give ${input.secretOption}`
        : unsignedText(provider, input.secretOption),
    );
  }
  return setup;
}
