/**
 * `list_triggers`: what the `trigger` tool can send: every provider's events
 * and sequences, or one provider's (src/trigger/list.ts).
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
      "The events and sequences the trigger tool can send, for one provider (github, stripe, ...) or all.",
    input: { provider: z.string().optional().describe("only this provider's") },
    output: {
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
      })),
    },
    readOnly: true,
    async run(args) {
      if (args.provider !== undefined) await loadCatalog(args.provider); // did-you-mean for a typo
      const entries = await listCatalog(
        args.provider === undefined ? undefined : canonicalProvider(args.provider) ?? args.provider,
      );
      const by = new Map<string, number>();
      for (const e of entries) by.set(e.provider, (by.get(e.provider) ?? 0) + 1);
      const head = args.provider === undefined
        ? `${entries.length} events and sequences of ${by.size} providers: ` +
          [...by].map(([p, n]) => `${p} (${n})`).join(", ")
        : entries.map((e) => `${e.kind === "sequence" ? "sequence " : ""}${e.name}`).join("\n");
      return answer({ entries }, head);
    },
  });
}
