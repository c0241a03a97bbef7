/**
 * The one event an id (or a prefix of it) names, with its exact stored line:
 * what `inspect`, `rm`, `replay ID` and mcp's `get_event` look up.
 * @module
 */
import { lazyImport } from "../../cli/lazy.ts";
import { HooktapError, NotFoundError } from "../../errors.ts";
import type { CapturedEvent } from "../../event/record.ts";
import { safeLine } from "../../text/sanitize.ts";
import { readLine, scanForward } from "./lines.ts";
import type { StoreReader } from "./reader.ts";
import { suggestCommand } from "../../text/command_line.ts";

/**
 * The one event whose id starts with `text` (a whole id, a prefix, or a
 * prefix of its ULID part).
 * @throws {NotFoundError} when none matches; {@linkcode HooktapError} listing the matches when several do.
 */
export async function resolveEvent(reader: StoreReader | null, text: string): Promise<CapturedEvent> {
  return (await resolveEventLine(reader, text)).event;
}

/**
 * Like {@linkcode resolveEvent}, with the event's exact stored line (without its newline).
 * @throws {NotFoundError} when none matches; {@linkcode HooktapError} listing the matches when several do.
 */
export async function resolveEventLine(
  reader: StoreReader | null,
  text: string,
): Promise<{ event: CapturedEvent; line: string }> {
  // The id lookup is imported when an id is looked up: `logs` and the other listings never load it.
  const { findByIdPrefix, parseIdQuery } = await lazyImport<typeof import("./lookup.ts")>(
    "src/store/read/lookup.ts",
  );
  const query = parseIdQuery(text);
  const notFound = () =>
    new NotFoundError(
      `No event with id ${safeLine(text)} in .hooktap/events.jsonl. Run \`${
        suggestCommand(["logs"])
      }\` to list the stored events.`,
    );
  if (reader === null) throw notFound();
  const found = await findByIdPrefix(reader, query, { max: 10 });
  if (found.matches.length === 0) throw notFound();
  if (found.matches.length > 1) {
    const more = found.matches.length > 10 ? "\n  ... and more" : "";
    throw new HooktapError(
      `The id prefix ${safeLine(text)} is ambiguous; it matches:\n` +
        found.matches.slice(0, 10).map((m) => `  ${m.id}`).join("\n") + more +
        "\nType more characters of the id.",
    );
  }
  if (found.event === undefined) {
    throw new NotFoundError(`The line of event ${found.matches[0]!.id} is damaged and cannot be read.`);
  }
  const start = found.matches[0]!.start;
  for await (const line of scanForward(reader.file, start, reader.size)) {
    return { event: found.event, line: new TextDecoder().decode(await readLine(reader.file, line)) };
  }
  return { event: found.event, line: JSON.stringify(found.event) };
}
