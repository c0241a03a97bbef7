/**
 * Which providers can be triggered, each catalog module imported only when
 * used, and how a `<provider> <event>` pair is resolved (an event, or a
 * sequence of events), with did-you-mean for a typo.
 * @module
 */
import { UsageError } from "../errors.ts";
import { canonicalProvider, CATALOG } from "../providers/catalog.ts";
import { PROVIDER_INDEX } from "../providers/index.ts";
import { PROVIDER_METAS } from "../providers/metas.gen.ts";
import { closest } from "../text/suggest.ts";
import type { SequenceStep, TriggerCatalog } from "../providers/catalog_types.ts";
import { suggestCommand } from "../text/command_line.ts";

type Loader = () => Promise<{ catalog: TriggerCatalog }>;

/** Every triggerable provider's catalog module by canonical name, in detection order (src/providers/index.ts). */
export const TRIGGER_CATALOGS: Readonly<Record<string, Loader>> = Object.fromEntries(
  Object.entries(PROVIDER_INDEX).flatMap(([folder, parts]) =>
    parts.catalog === undefined ? [] : [[PROVIDER_METAS[folder]!.name, parts.catalog]]
  ),
);

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
        `Run \`${suggestCommand(["trigger", "--list"])}\` for every provider and event.`,
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
  const title = CATALOG[catalog.provider]?.title ?? catalog.provider;
  const list = `Run \`${suggestCommand(["trigger", "--list", catalog.provider])}\` to see them all.`;
  // GitHub's `issues`, Shopify's `orders` (orders/create), Stripe's `customer`...: the name the sender puts in its event header, whose events here
  // each carry their action (or sub-type). Named with a few of them (the sequence of the same family too, when near).
  const separator = catalog.events.some((n) => n.startsWith(`${event}/`)) ? "/" : ".";
  const family = catalog.events.filter((n) => n.startsWith(`${event}${separator}`));
  const names = [...catalog.events, ...Object.keys(catalog.sequences)];
  const near = closest(event, names);
  if (family.length > 0) {
    const shown = [...family.filter((n) => /[./](opened|created|create)$/.test(n)), ...family].filter((
      n,
      i,
      all,
    ) => all.indexOf(n) === i).slice(0, 4);
    const sequence = near !== undefined && catalog.sequences[near] !== undefined
      ? `, or the sequence ${near} (${catalog.sequences[near]!.steps.map((s) => s.event).join(" → ")})`
      : "";
    throw new UsageError(
      `${title} has no single "${event}" event: name one of its ${family.length} "${event}${separator}" events, ` +
        `such as ${shown.join(", ")}${sequence}. ${list}`,
    );
  }
  throw new UsageError(
    `${title} has no event or sequence "${event}" in hooktap's catalog${
      near ? `: did you mean ${near}?` : "."
    } ` +
      list,
  );
}
