/**
 * Fixtures: events recorded from real traffic, as JSON Lines files to
 * commit beside the tests. `loadEvents` reads them (or a data directory's
 * `events.jsonl`); `writeFixture` writes them with signatures masked.
 * @module
 */
import { type CapturedEvent, parseEventLine } from "../event/record.ts";
import { SIGNATURE_HEADER_NAMES, toFixtureLines } from "../export/fixture.ts";
import { type ReceivedEvent, toReceivedEvent } from "./event.ts";

function cwdNote(): string {
  try {
    return `, ${Deno.cwd()}`;
  } catch {
    return ""; // no read permission on it
  }
}

/**
 * Reads a JSONL file of events (a fixture, or `.hooktap/events.jsonl`).
 * Blank lines are skipped.
 * @throws {Deno.errors.NotFound} naming the file and how to record one, when there is none.
 * @throws {Error} naming the file and line when a line is not a hooktap event record.
 *
 * @example
 * ```ts
 * import { loadEvents } from "@hooktap/hooktap/testing";
 * const events = await loadEvents("tests/fixtures/github_push.jsonl");
 * console.log(events[0]?.header("x-github-event")); // "push"
 * ```
 */
export async function loadEvents(path: string | URL): Promise<ReceivedEvent[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    const where = typeof path === "string" && !path.startsWith("/")
      ? ` (a relative path is read from the working directory${cwdNote()}: ` +
        '`new URL("./fixtures/name.jsonl", import.meta.url)` reads beside the test)'
      : "";
    throw new Deno.errors.NotFound(
      `loadEvents: no file ${path}${where}. Record one with ` +
        "`hooktap export --format fixture > FILE` or writeFixture.",
      { cause: error },
    );
  }
  const events: ReceivedEvent[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const record = parseEventLine(line);
    if (record === undefined) {
      throw new Error(
        `${path}:${i + 1} is not a hooktap event record (v1 JSON: id, endpoint, headers, body, ...). ` +
          `Write fixtures with writeFixture or \`hooktap export --format fixture\`.`,
      );
    }
    events.push(toReceivedEvent(record));
  });
  return events;
}

/**
 * Writes events to a fixture file, signature header values masked
 * (`replayEvent(..., { resign })` signs them afresh).
 *
 * @example Record what a test received, to commit
 * ```ts
 * import { startReceiver, writeFixture } from "@hooktap/hooktap/testing";
 * await using rx = await startReceiver();
 * // ... let the real sender deliver ...
 * await writeFixture(rx.events(), "tests/fixtures/recorded.jsonl");
 * ```
 */
export async function writeFixture(
  events: readonly (ReceivedEvent | CapturedEvent)[],
  path: string | URL,
  options: { signatureHeaders?: readonly string[] } = {},
): Promise<void> {
  const records = events.map((e) => "record" in e ? e.record : e as CapturedEvent);
  await Deno.writeTextFile(path, toFixtureLines(records, options.signatureHeaders ?? SIGNATURE_HEADER_NAMES));
}
