/**
 * Which providers can be triggered, each catalog module imported only when
 * used, and how a `<provider> <event>` pair is resolved (an event, or a
 * sequence of events), with did-you-mean for a typo.
 * @module
 */
import { lazyImport } from "../cli/lazy.ts";
import { UsageError } from "../errors.ts";
import { canonicalProvider, CATALOG } from "../providers/catalog.ts";
import { closest } from "../text/suggest.ts";
import type { SequenceStep, TriggerCatalog } from "./types.ts";

type Loader = () => Promise<{ catalog: TriggerCatalog }>;

/** Every triggerable provider's catalog module, in the registry's order. */
export const TRIGGER_CATALOGS: Readonly<Record<string, Loader>> = {
  github: () =>
    lazyImport<typeof import("../providers/github/catalog.ts")>("src/providers/github/catalog.ts"),
  stripe: () =>
    lazyImport<typeof import("../providers/stripe/catalog.ts")>("src/providers/stripe/catalog.ts"),
  shopify: () =>
    lazyImport<typeof import("../providers/shopify/catalog.ts")>("src/providers/shopify/catalog.ts"),
  slack: () => lazyImport<typeof import("../providers/slack/catalog.ts")>("src/providers/slack/catalog.ts"),
  "standard-webhooks": () =>
    lazyImport<typeof import("../providers/standard_webhooks/catalog.ts")>(
      "src/providers/standard_webhooks/catalog.ts",
    ),
  twilio: () =>
    lazyImport<typeof import("../providers/twilio/catalog.ts")>("src/providers/twilio/catalog.ts"),
  zoom: () => lazyImport<typeof import("../providers/zoom/catalog.ts")>("src/providers/zoom/catalog.ts"),
  paddle: () =>
    lazyImport<typeof import("../providers/paddle/catalog.ts")>("src/providers/paddle/catalog.ts"),
  linear: () =>
    lazyImport<typeof import("../providers/linear/catalog.ts")>("src/providers/linear/catalog.ts"),
  discord: () =>
    lazyImport<typeof import("../providers/discord/catalog.ts")>("src/providers/discord/catalog.ts"),
  sendgrid: () =>
    lazyImport<typeof import("../providers/sendgrid/catalog.ts")>("src/providers/sendgrid/catalog.ts"),
  telegram: () =>
    lazyImport<typeof import("../providers/telegram/catalog.ts")>("src/providers/telegram/catalog.ts"),
  twitch: () =>
    lazyImport<typeof import("../providers/twitch/catalog.ts")>("src/providers/twitch/catalog.ts"),
  meta: () => lazyImport<typeof import("../providers/meta/catalog.ts")>("src/providers/meta/catalog.ts"),
  msgraph: () =>
    lazyImport<typeof import("../providers/msgraph/catalog.ts")>("src/providers/msgraph/catalog.ts"),
  x: () => lazyImport<typeof import("../providers/x/catalog.ts")>("src/providers/x/catalog.ts"),
  dropbox: () =>
    lazyImport<typeof import("../providers/dropbox/catalog.ts")>("src/providers/dropbox/catalog.ts"),
  hmac: () => lazyImport<typeof import("../providers/hmac/catalog.ts")>("src/providers/hmac/catalog.ts"),
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
