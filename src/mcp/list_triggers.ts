/**
 * `list_triggers`: what the `trigger` tool can send (src/trigger/list.ts):
 * one provider's events and sequences, those whose name has a text, or,
 * asked for nothing, each provider with its count. Every entry of every
 * provider at once (1,400, about 340 KB of text) would fill an agent's
 * context for nothing, so that list is never given whole.
 * @module
 */
import { z } from "zod";
import { canonicalProvider } from "../providers/catalog.ts";
import { listCatalog } from "../trigger/list.ts";
import { loadCatalog } from "../trigger/registry.ts";
import { answer } from "./result.ts";
import { defineTool } from "./tool.ts";

/** The tool. */
export function listTriggers() {
  return defineTool({
    name: "list_triggers",
    title: "What can be triggered",
    description:
      "The events and sequences the trigger tool can send: one provider's (github, stripe, ...), or those " +
      "whose name contains `match` (invoice, push), or with neither each provider and how many it has.",
    input: {
      provider: z.string().optional().describe("only this provider's"),
      match: z.string().min(1).optional().describe("only entries whose name contains this text (any case)"),
    },
    output: {
      providers: z.array(z.object({ provider: z.string(), entries: z.number().int() }))
        .describe("each provider and how many entries it has (of those matching)"),
      entries: z.array(z.object({
        provider: z.string(),
        name: z.string(),
        kind: z.enum(["event", "sequence"]),
        description: z.string().optional(),
        steps: z.array(z.string()).optional(),
        generated: z.boolean().describe("made from the provider's published source (else hand-written)"),
        source: z.string().describe("`generated from <package>@<version>` or `hand-written`"),
        from: z.string().optional().describe(
          "how a generated payload was made: example, example+schema, schema",
        ),
        alias: z.string().optional().describe("what an alias stands for"),
      })).describe("empty when neither provider nor match is given (providers counts them)"),
    },
    readOnly: true,
    async run(args) {
      if (args.provider !== undefined) await loadCatalog(args.provider); // did-you-mean for a typo
      const all = await listCatalog(
        args.provider === undefined ? undefined : canonicalProvider(args.provider) ?? args.provider,
      );
      const match = args.match?.toLowerCase();
      const matching = match === undefined ? all : all.filter((e) => e.name.toLowerCase().includes(match));
      const by = new Map<string, number>();
      for (const e of matching) by.set(e.provider, (by.get(e.provider) ?? 0) + 1);
      const providers = [...by].map(([provider, entries]) => ({ provider, entries }));
      const whole = args.provider === undefined && match === undefined;
      const entries = whole ? [] : matching;
      const head = whole
        ? `${matching.length} events and sequences of ${by.size} providers: ` +
          providers.map((p) => `${p.provider} (${p.entries})`).join(", ") +
          `. Ask for one provider's (provider: "github") or for names with a text (match: "invoice").`
        : entries.length === 0
        ? `No event or sequence${args.provider !== undefined ? ` of ${args.provider}` : ""} has ` +
          `"${args.match}" in its name.`
        : entries.map((e) =>
          `${args.provider === undefined ? `${e.provider} ` : ""}` +
          `${e.kind === "sequence" ? "sequence " : ""}${e.name}`
        ).join("\n");
      return answer({ providers, entries }, head);
    },
  });
}
