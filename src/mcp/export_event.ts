/**
 * `export_event`: one stored event as `hooktap export` writes it: a curl
 * command that sends it again (every word single-quoted), a test fixture
 * (the stored record with signatures masked, for `loadEvents`), a HAR entry
 * or the stored JSON line (src/export/).
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { formatNamed } from "../export/registry.ts";
import { VERSION } from "../version.ts";
import type { McpContext } from "./context.ts";
import { lookUpLine } from "./get_event.ts";
import { answer } from "./result.ts";
import { defineTool } from "./tool.ts";

const FORMATS = ["curl", "fixture", "har", "jsonl"] as const;

/** The tool. */
export function exportEvent(ctx: McpContext) {
  return defineTool({
    name: "export_event",
    title: "Export a stored event (curl, test fixture)",
    description:
      "One stored event as `hooktap export --format` writes it: `curl` (a shell command that sends the same " +
      "request again; `to` sends it elsewhere), `fixture` (a JSON line for the app's tests, signature " +
      "headers masked; hooktap/testing's loadEvents reads it), `har` or `jsonl` (the stored record).",
    input: {
      id: z.string().min(1).describe("the event id or a unique prefix"),
      format: z.enum(FORMATS).describe("curl, fixture, har or jsonl"),
      to: z.string().optional().describe("curl: send to this URL instead of the original"),
    },
    output: {
      id: z.string(),
      format: z.enum(FORMATS),
      text: z.string().describe("the exported text, to write to a file or run"),
    },
    readOnly: true,
    async run(args) {
      if (args.to !== undefined && args.format !== "curl") {
        throw new UsageError("`to` sets the URL of the curl format; the other formats keep the event's own.");
      }
      const found = await lookUpLine(ctx, args.id);
      const writer = formatNamed(args.format)!.create({
        version: VERSION,
        ...(args.to ? { to: args.to } : {}),
      });
      const piece = writer.event(found.event, found.line);
      const text = (writer.head?.() ?? "") +
        (typeof piece === "string" ? piece : new TextDecoder().decode(piece)) +
        (writer.tail?.() ?? "");
      return answer(
        { id: found.event.id, format: args.format, text },
        `${found.event.id} as ${args.format}:`,
      );
    },
  });
}
