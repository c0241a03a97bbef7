import assert from "node:assert/strict";
import { eventLine } from "../../event/record.ts";
import { followEvents } from "./follow.ts";
import { logText, makeEvents, tempStore } from "../../../tests/_store_fixture.ts";

const EVENTS = makeEvents(8);

/** Collects what `followEvents` yields until `want` events came (or 5 s passed). */
function collect(
  gen: AsyncGenerator<{ id: string }>,
  want: number,
  stop: AbortController,
): Promise<string[]> {
  const ids: string[] = [];
  const timer = setTimeout(() => stop.abort(), 5000);
  return (async () => {
    for await (const e of gen) {
      ids.push(e.id);
      if (ids.length === want) break;
    }
    clearTimeout(timer);
    stop.abort();
    return ids;
  })();
}

Deno.test("followEvents from the middle of a line still being written yields that line's event once it is whole", async () => {
  const head = logText(EVENTS.slice(0, 3));
  const third = eventLine(EVENTS[3]!);
  await using store = await tempStore(head + third.slice(0, 30));
  const stop = new AbortController();
  const skipped: number[] = [];
  const got = collect(
    followEvents(store, head.length + 30, {
      signal: stop.signal,
      pollMs: 10,
      onSkip: (l) => skipped.push(l.start),
    }),
    1,
    stop,
  );
  await new Promise((r) => setTimeout(r, 50));
  await Deno.writeTextFile(store.events, third.slice(30), { append: true });
  assert.deepEqual(await got, [EVENTS[3]!.id]);
  assert.deepEqual(skipped, [], "no line reported damaged");
});

Deno.test("followEvents across a compaction (a smaller or a larger copy renamed over the log) yields only new events", async () => {
  for (const kept of [EVENTS.slice(2, 3), EVENTS.slice(0, 4)]) {
    await using store = await tempStore(logText(EVENTS.slice(0, 4)));
    const stop = new AbortController();
    const skipped: number[] = [];
    const from = (await Deno.stat(store.events)).size;
    const gen = followEvents(store, from, {
      signal: stop.signal,
      pollMs: 10,
      onSkip: (l) => skipped.push(l.start),
    });
    const got = collect(gen, 3, stop);
    await new Promise((r) => setTimeout(r, 50));
    await Deno.writeTextFile(store.events, eventLine(EVENTS[4]!), { append: true });
    await new Promise((r) => setTimeout(r, 50));
    // prune/rm: a copy of the kept lines renamed over the log, then dev appends more at once.
    await Deno.writeTextFile(`${store.events}.tmp`, logText([...kept, EVENTS[4]!, EVENTS[5]!, EVENTS[6]!]));
    await Deno.rename(`${store.events}.tmp`, store.events);
    assert.deepEqual(await got, EVENTS.slice(4, 7).map((e) => e.id));
    assert.deepEqual(skipped, [], "no line reported damaged");
  }
});
