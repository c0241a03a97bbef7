/**
 * Which providers can be triggered, each catalog module imported only when
 * used, and how a `<provider> <event>` pair is resolved (an event, or a
 * sequence of events), with did-you-mean for a typo.
 * @module
 */
import { lazyImport } from "../cli/lazy.ts";
import { UsageError } from "../errors.ts";
import { canonicalProvider, CATALOG } from "../provider/catalog.ts";
import { closest } from "../text/suggest.ts";
import type { SequenceStep, TriggerCatalog } from "./types.ts";

type Loader = () => Promise<{ catalog: TriggerCatalog }>;

/** Every triggerable provider's catalog module, in the registry's order. */
export const TRIGGER_CATALOGS: Readonly<Record<string, Loader>> = {
  github: () => lazyImport<typeof import("./catalog/github.ts")>("src/trigger/catalog/github.ts"),
  stripe: () => lazyImport<typeof import("./catalog/stripe.ts")>("src/trigger/catalog/stripe.ts"),
  shopify: () => lazyImport<typeof import("./catalog/shopify.ts")>("src/trigger/catalog/shopify.ts"),
  slack: () => lazyImport<typeof import("./catalog/slack.ts")>("src/trigger/catalog/slack.ts"),
  "standard-webhooks": () =>
    lazyImport<typeof import("./catalog/standard_webhooks.ts")>("src/trigger/catalog/standard_webhooks.ts"),
  twilio: () => lazyImport<typeof import("./catalog/twilio.ts")>("src/trigger/catalog/twilio.ts"),
  zoom: () => lazyImport<typeof import("./catalog/zoom.ts")>("src/trigger/catalog/zoom.ts"),
  paddle: () => lazyImport<typeof import("./catalog/paddle.ts")>("src/trigger/catalog/paddle.ts"),
  linear: () => lazyImport<typeof import("./catalog/linear.ts")>("src/trigger/catalog/linear.ts"),
  discord: () => lazyImport<typeof import("./catalog/discord.ts")>("src/trigger/catalog/discord.ts"),
  sendgrid: () => lazyImport<typeof import("./catalog/sendgrid.ts")>("src/trigger/catalog/sendgrid.ts"),
  telegram: () => lazyImport<typeof import("./catalog/telegram.ts")>("src/trigger/catalog/telegram.ts"),
  twitch: () => lazyImport<typeof import("./catalog/twitch.ts")>("src/trigger/catalog/twitch.ts"),
  meta: () => lazyImport<typeof import("./catalog/meta.ts")>("src/trigger/catalog/meta.ts"),
  msgraph: () => lazyImport<typeof import("./catalog/msgraph.ts")>("src/trigger/catalog/msgraph.ts"),
  x: () => lazyImport<typeof import("./catalog/x.ts")>("src/trigger/catalog/x.ts"),
  dropbox: () => lazyImport<typeof import("./catalog/dropbox.ts")>("src/trigger/catalog/dropbox.ts"),
  hmac: () => lazyImport<typeof import("./catalog/hmac.ts")>("src/trigger/catalog/hmac.ts"),
};

/** The names `trigger` takes for a provider (canonical names and aliases). */
export function triggerProviderNames(): string[] {
  return Object.keys(TRIGGER_CATALOGS);
}

/**
 * The catalog of a provider name or alias.
 * @throws {UsageError} for an unknown provider, with did-you-mean and a pointer at `--list`.
 */
export async function loadCatalog(name: string): Promise<TriggerCatalog> {
  const key = canonicalProvider(name);
  const load = key === undefined ? undefined : TRIGGER_CATALOGS[key];
  if (load === undefined) {
    const near = closest(name, Object.keys(TRIGGER_CATALOGS));
    throw new UsageError(
      `hooktap cannot trigger "${name}": it is not a provider it knows${
        near ? ` (did you mean ${near}?)` : ""
      }. ` +
        "Run `hooktap trigger --list` for every provider and event.",
    );
  }
  return (await load()).catalog;
}

/** What a `<provider> <event>` pair sends: one event, or a sequence's steps. */
export interface Resolved {
  /** The sequence's name, when the pair named one. */
  sequence?: string;
  steps: readonly SequenceStep[];
}

/**
 * The steps of `event` (an event or a sequence) in `catalog`.
 * @throws {UsageError} for an unknown event, with did-you-mean and a pointer at `--list`.
 */
export function resolveEvent(catalog: TriggerCatalog, event: string): Resolved {
  if (catalog.events.includes(event)) return { steps: [{ event }] };
  const sequence = catalog.sequences[event];
  if (sequence !== undefined) return { sequence: event, steps: sequence.steps };
  const names = [...catalog.events, ...Object.keys(catalog.sequences)];
  const near = closest(event, names) ?? names.find((n) => n.startsWith(`${event}.`));
  const title = CATALOG[catalog.provider]?.title ?? catalog.provider;
  throw new UsageError(
    `${title} has no event or sequence "${event}" in hooktap's catalog${
      near ? `: did you mean ${near}?` : "."
    } ` +
      `Run \`hooktap trigger --list ${catalog.provider}\` to see them all.`,
  );
}
