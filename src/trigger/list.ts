/**
 * What `trigger --list` and completion show: the providers with their
 * event counts, or one provider's events and sequences, each marked with
 * where it comes from (generated from a pinned source, or hand-written).
 * GitHub's events come from its generated index, never its payloads.
 * @module
 */
import { CATALOG } from "../providers/catalog.ts";
import { loadCatalog, TRIGGER_CATALOGS } from "./registry.ts";
import { isGenerated } from "../providers/catalog_types.ts";

/** One listed entry. */
export interface ListEntry {
  provider: string;
  /** An event's or a sequence's name. */
  name: string;
  kind: "event" | "sequence";
  /** A sequence's description. */
  description?: string;
  /** A sequence's events, in order. */
  steps?: string[];
  /** Whether the entry was generated from a published source (else hand-written). */
  generated: boolean;
  /** `generated from <package>@<version> ...` or `hand-written` (a sequence is hand-written). */
  source: string;
  /** How a generated entry's payload was made (`example`, `example+schema`, `schema`), where the catalog says. */
  from?: string;
  /** What an alias stands for. */
  alias?: string;
}

/** Every entry of `provider`'s catalog, or of every provider's. */
export async function listCatalog(provider?: string): Promise<ListEntry[]> {
  const names = provider === undefined ? Object.keys(TRIGGER_CATALOGS) : [provider];
  const out: ListEntry[] = [];
  for (const name of names) {
    const catalog = await loadCatalog(name);
    const generated = isGenerated(catalog.source);
    for (const event of catalog.events) {
      const origin = catalog.entryOrigin?.(event);
      out.push({
        provider: catalog.provider,
        name: event,
        kind: "event",
        // A catalog generated from a package may keep some entries written by hand.
        generated: generated && origin?.from !== "hand-written",
        source: origin?.from === "hand-written" ? "hand-written" : catalog.source,
        ...(origin !== undefined ? { from: origin.from } : {}),
        ...(origin?.alias !== undefined ? { alias: origin.alias } : {}),
      });
    }
    for (const [seq, s] of Object.entries(catalog.sequences)) {
      out.push({
        provider: catalog.provider,
        name: seq,
        kind: "sequence",
        description: s.description,
        steps: s.steps.map((x) => x.event),
        generated: false,
        source: "hand-written",
      });
    }
  }
  return out;
}

/** Completion's candidates: providers (with titles), or a provider's events and sequences. */
export async function triggerCandidates(provider?: string): Promise<[string, string][]> {
  if (provider === undefined) {
    return Object.keys(TRIGGER_CATALOGS).map((p) => [p, CATALOG[p]?.title ?? ""]);
  }
  try {
    return (await listCatalog(provider)).map((
      e,
    ) => [e.name, e.kind === "sequence" ? `sequence: ${e.description}` : ""]);
  } catch {
    return [];
  }
}
