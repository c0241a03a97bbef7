/**
 * THE list of providers: one entry per folder `src/providers/<folder>/`, in
 * detection order (the most specific first, the fallback last), each with
 * lazy loaders for its verification, trigger samples and payload schema
 * (src/cli/lazy.ts: out of the start-up graph). The folders' facts
 * (`meta.ts`) are gathered, in this order, into `metas.gen.ts` (cheap, for
 * start-up) and their verifications into `verifiers.gen.ts` (the receiver's
 * detection order) by `deno task providers`; everything that needs a
 * provider's name, facts or code derives from these. Adding a sender: its folder
 * (meta.ts, verify.ts, catalog.ts, tests), one entry here, `deno task
 * providers`; src/providers/index_test.ts fails when a part is missing.
 * @module
 */
import { lazyImport } from "../cli/lazy.ts";
import type { PayloadSchema, Provider } from "./types.ts";
import type { TriggerCatalog } from "./catalog_types.ts";

/** How to load a provider's parts (each module exports `provider`, `catalog` or `schema`). */
export interface ProviderParts {
  readonly verify: () => Promise<{ provider: Provider }>;
  /** Its trigger samples; absent for the fallback. */
  readonly catalog?: () => Promise<{ catalog: TriggerCatalog }>;
  /** Its published payload schema, when there is one. */
  readonly schema?: () => Promise<{ schema: PayloadSchema }>;
}

/** Every provider's parts by folder name, in detection order. */
export const PROVIDER_INDEX: Readonly<Record<string, ProviderParts>> = {
  github: {
    verify: () => lazyImport<typeof import("./github/verify.ts")>("src/providers/github/verify.ts"),
    catalog: () => lazyImport<typeof import("./github/catalog.ts")>("src/providers/github/catalog.ts"),
    schema: () => lazyImport<typeof import("./github/schema.ts")>("src/providers/github/schema.ts"),
  },
  stripe: {
    verify: () => lazyImport<typeof import("./stripe/verify.ts")>("src/providers/stripe/verify.ts"),
    catalog: () => lazyImport<typeof import("./stripe/catalog.ts")>("src/providers/stripe/catalog.ts"),
  },
  shopify: {
    verify: () => lazyImport<typeof import("./shopify/verify.ts")>("src/providers/shopify/verify.ts"),
    catalog: () => lazyImport<typeof import("./shopify/catalog.ts")>("src/providers/shopify/catalog.ts"),
  },
  slack: {
    verify: () => lazyImport<typeof import("./slack/verify.ts")>("src/providers/slack/verify.ts"),
    catalog: () => lazyImport<typeof import("./slack/catalog.ts")>("src/providers/slack/catalog.ts"),
  },
  standard_webhooks: {
    verify: () =>
      lazyImport<typeof import("./standard_webhooks/verify.ts")>("src/providers/standard_webhooks/verify.ts"),
    catalog: () =>
      lazyImport<typeof import("./standard_webhooks/catalog.ts")>(
        "src/providers/standard_webhooks/catalog.ts",
      ),
  },
  twilio: {
    verify: () => lazyImport<typeof import("./twilio/verify.ts")>("src/providers/twilio/verify.ts"),
    catalog: () => lazyImport<typeof import("./twilio/catalog.ts")>("src/providers/twilio/catalog.ts"),
  },
  zoom: {
    verify: () => lazyImport<typeof import("./zoom/verify.ts")>("src/providers/zoom/verify.ts"),
    catalog: () => lazyImport<typeof import("./zoom/catalog.ts")>("src/providers/zoom/catalog.ts"),
  },
  paddle: {
    verify: () => lazyImport<typeof import("./paddle/verify.ts")>("src/providers/paddle/verify.ts"),
    catalog: () => lazyImport<typeof import("./paddle/catalog.ts")>("src/providers/paddle/catalog.ts"),
  },
  linear: {
    verify: () => lazyImport<typeof import("./linear/verify.ts")>("src/providers/linear/verify.ts"),
    catalog: () => lazyImport<typeof import("./linear/catalog.ts")>("src/providers/linear/catalog.ts"),
  },
  discord: {
    verify: () => lazyImport<typeof import("./discord/verify.ts")>("src/providers/discord/verify.ts"),
    catalog: () => lazyImport<typeof import("./discord/catalog.ts")>("src/providers/discord/catalog.ts"),
  },
  sendgrid: {
    verify: () => lazyImport<typeof import("./sendgrid/verify.ts")>("src/providers/sendgrid/verify.ts"),
    catalog: () => lazyImport<typeof import("./sendgrid/catalog.ts")>("src/providers/sendgrid/catalog.ts"),
  },
  telegram: {
    verify: () => lazyImport<typeof import("./telegram/verify.ts")>("src/providers/telegram/verify.ts"),
    catalog: () => lazyImport<typeof import("./telegram/catalog.ts")>("src/providers/telegram/catalog.ts"),
  },
  twitch: {
    verify: () => lazyImport<typeof import("./twitch/verify.ts")>("src/providers/twitch/verify.ts"),
    catalog: () => lazyImport<typeof import("./twitch/catalog.ts")>("src/providers/twitch/catalog.ts"),
  },
  meta: {
    verify: () => lazyImport<typeof import("./meta/verify.ts")>("src/providers/meta/verify.ts"),
    catalog: () => lazyImport<typeof import("./meta/catalog.ts")>("src/providers/meta/catalog.ts"),
  },
  msgraph: {
    verify: () => lazyImport<typeof import("./msgraph/verify.ts")>("src/providers/msgraph/verify.ts"),
    catalog: () => lazyImport<typeof import("./msgraph/catalog.ts")>("src/providers/msgraph/catalog.ts"),
  },
  x: {
    verify: () => lazyImport<typeof import("./x/verify.ts")>("src/providers/x/verify.ts"),
    catalog: () => lazyImport<typeof import("./x/catalog.ts")>("src/providers/x/catalog.ts"),
  },
  dropbox: {
    verify: () => lazyImport<typeof import("./dropbox/verify.ts")>("src/providers/dropbox/verify.ts"),
    catalog: () => lazyImport<typeof import("./dropbox/catalog.ts")>("src/providers/dropbox/catalog.ts"),
  },
  hmac: {
    verify: () => lazyImport<typeof import("./hmac/verify.ts")>("src/providers/hmac/verify.ts"),
    catalog: () => lazyImport<typeof import("./hmac/catalog.ts")>("src/providers/hmac/catalog.ts"),
  },
  generic: {
    verify: () => lazyImport<typeof import("./generic/verify.ts")>("src/providers/generic/verify.ts"),
  },
};
