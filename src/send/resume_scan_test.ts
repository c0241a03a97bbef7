import assert from "node:assert/strict";
import { join } from "node:path";
import { allDeliveries, at, attempt, eventIdAt, givenUpOf } from "../../tests/_delivery_fixture.ts";
import type { DeliveryRecord } from "../event/delivery.ts";
import { createIdFactory } from "../event/id.ts";
import { buildEvent, eventLine } from "../event/record.ts";
import { storePaths } from "../store/paths.ts";
import { planResume, readFacts } from "./resume_scan.ts";

const sorted = (groups: { endpoint: string; target: string; events: string[] }[]) =>
  groups.map((g) => ({ ...g, events: [...g.events].sort() })).sort((a, b) =>
    `${a.endpoint} ${a.target}`.localeCompare(`${b.endpoint} ${b.target}`)
  );

Deno.test("readFacts(): the given-up pairs of the whole log and the facts after the mark, as a whole read finds them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "deliveries.jsonl");
    const ids = Array.from({ length: 60 }, (_, i) => createIdFactory("evt")(at(i)));
    const lines: DeliveryRecord[] = [];
    for (const [i, e] of ids.entries()) {
      const target = i % 4 === 0 ? "audit" : "app";
      if (i % 5 === 0) {
        lines.push(attempt(e, i + 0.1, { target, outcome: "retrying", status: 503 }));
        lines.push(attempt(e, i + 0.2, { target, outcome: "failed", status: 503, attempt: 2 })); // given up
      } else if (i % 7 === 0) {
        lines.push(attempt(e, i + 0.1, { target, source: "replay", outcome: "failed", error: "refused" }));
      } else if (i % 11 === 0) {
        // Nothing listened, then delivered: the try is kept as no attempt.
        lines.push(attempt(e, i + 0.1, { target, outcome: "retrying", refused: true, error: "refused" }));
        lines.push(attempt(e, i + 0.2, { target }));
      } else lines.push(attempt(e, i + 0.1, { target }));
    }
    // Two given-up events sent again later and delivered: no longer given up (one by a replay).
    lines.push(attempt(ids[10]!, 70, { source: "replay" }));
    lines.push(attempt(ids[40]!, 71, { target: "audit" }));
    // Delivered before its given-up attempt (a pair can only be judged on the whole log).
    lines.splice(3, 0, attempt(ids[45]!, 1, { target: "app" }));
    const v1 = { v: 1, event: ids[20]!, id: "dlv_x", attempt: 1, target: "http://127.0.0.1:3000/hook" };
    const text = lines.map((r) => JSON.stringify(r) + "\n").join("") +
      `${JSON.stringify({ ...v1, outcome: "failed", source: "forward", endpoint: "github" })}\nnot json\n` +
      JSON.stringify(attempt(ids[55]!, 80, { outcome: "failed" })).slice(0, 40); // torn: not a record yet
    await Deno.writeTextFile(path, text);
    const all = await allDeliveries(path);
    for (const mark of [undefined, ids[0]!, ids[30]!, ids[59]!, "evt_99999999_"]) {
      const { facts, givenUp } = readFacts(path, mark);
      assert.deepEqual(sorted(givenUp), sorted(givenUpOf(all)), `given up, mark ${mark}`);
      const expected = new Map<string, unknown[]>();
      for (const d of all) {
        if (mark !== undefined && d.event <= mark) continue;
        const fact: Record<string, unknown> = {
          target: d.target,
          url: d.url,
          source: d.source,
          outcome: d.outcome,
        };
        if (d.status !== undefined) fact.status = d.status;
        if (d.refused === true) fact.refused = true;
        expected.set(d.event, [...(expected.get(d.event) ?? []), fact]);
      }
      assert.deepEqual(facts, expected, `facts after mark ${mark}`);
    }
    assert.ok(givenUpOf(all).length > 0 && givenUpOf(all).some((g) => g.events.includes(ids[5]!)));
    assert.ok(!givenUpOf(all).some((g) => g.events.includes(ids[10]!) || g.events.includes(ids[45]!)));
    assert.deepEqual(readFacts(join(dir, "none.jsonl"), undefined), { facts: new Map(), givenUp: [] });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("planResume(): a waiting event is sent `resumed` only when the app may have seen it (an unclean last run, or an attempt that reached it)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const paths = storePaths(dir);
    const events = [0, 1, 2, 3, 4].map((i) => {
      const event = buildEvent({
        id: eventIdAt(i),
        endpoint: "github",
        receivedAt: at(i),
        method: "POST",
        path: "/hook",
        query: "",
        headers: [],
        body: new TextEncoder().encode(`{"n":${i}}`),
        remoteAddr: "127.0.0.1",
      });
      event.forward = { to: "http://127.0.0.1:3000/hook", mode: "queue" };
      return event;
    });
    const [e0, e1, , e3, e4] = events.map((e) => e.id) as [string, string, string, string, string];
    /** An attempt with no answer from the app: no status. */
    const unanswered = (r: DeliveryRecord): DeliveryRecord => {
      const { status: _, statusText: _t, ...rest } = r;
      return rest;
    };
    const records: DeliveryRecord[] = [
      unanswered(attempt(e0, 10, { outcome: "retrying", refused: true, error: "refused" })), // nothing listened
      unanswered(attempt(e0, 11, { outcome: "retrying", refused: true, error: "refused" })), // twice
      unanswered(attempt(e1, 12, { outcome: "retrying", refused: true, error: "refused" })),
      attempt(e1, 13, { outcome: "retrying", status: 503 }), // it answered: it saw it
      // e2: never tried (it waited behind the others)
      unanswered(attempt(e3, 14, { outcome: "retrying", error: "timeout" })), // accepted, no answer in time
      attempt(e4, 15), // delivered: not waiting
    ];
    await Deno.writeTextFile(paths.events, events.map(eventLine).join(""));
    await Deno.writeTextFile(paths.deliveries, records.map((r) => JSON.stringify(r) + "\n").join(""));
    const admitted = async (clean: boolean | undefined, concurrency = 8) => {
      // An arrival-order target (the default) sending `concurrency` at once.
      const targets = [{ name: "app", to: "http://127.0.0.1:3000/hook", concurrency }];
      const plan = await (clean === undefined
        ? planResume(paths, undefined, () =>
          targets)
        : planResume(paths, undefined, () => targets, clean));
      assert.equal(plan.lanes.get("github\napp")?.count, 4);
      const admit = plan.admit("github", "app");
      return events.map((e) => admit(e));
    };
    const seen = { attempt: 2, resumed: true };
    assert.deepEqual(await admitted(true), [
      { attempt: 1, resumed: false },
      seen,
      { attempt: 1, resumed: false },
      seen,
      undefined,
    ]);
    const unclean = [{ attempt: 1, resumed: true }, seen, { attempt: 1, resumed: true }, seen, undefined];
    assert.deepEqual(await admitted(false), unclean);
    assert.deepEqual(await admitted(undefined), unclean, "by default the last run is not taken as clean");
    // One at a time: of the events never answered, only the lane's head may have been in flight; e2 waited
    // behind it and never went out (e1 and e3 reached the app: seen either way).
    assert.deepEqual(await admitted(false, 1), [
      { attempt: 1, resumed: true },
      seen,
      { attempt: 1, resumed: false },
      seen,
      undefined,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
