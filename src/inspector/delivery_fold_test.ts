import assert from "node:assert/strict";
import { type DeliveryFact, eventDelivery } from "../send/delivery_state.ts";
import { type DeliverySubject, foldedDelivery, foldFact, newFold, subjectOf } from "./delivery_fold.ts";

/** A small seeded generator (mulberry32): the same cases every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const base = { id: "evt_20261120_01JD0000000000000000000000", receivedAt: "2026-11-20T10:00:00.000Z" };
/** Every shape of forward mark the model tells apart. */
const SUBJECTS: DeliverySubject[] = [
  { ...base, query: "" }, // not forwarded
  { ...base, query: "a=1", forward: { to: "http://127.0.0.1:3000/hook", mode: "queue" } },
  { ...base, query: "", forward: { to: "http://127.0.0.1:3000/hook", mode: "relay" } },
  {
    ...base,
    query: "",
    forward: { to: "http://127.0.0.1:3000/hook", mode: "queue", targets: ["app", "audit"] },
  },
  { ...base, query: "", forward: { to: "http://127.0.0.1:3000/hook", mode: "queue", targets: [] } },
  {
    ...base,
    query: "",
    params: { shop: "s1" },
    forward: { to: "http://127.0.0.1:3000/{shop}", mode: "queue" },
  },
];
const TARGETS = ["127.0.0.1:3000", "app", "audit", "orders", "127.0.0.1:4000"];
const URLS = [
  "http://127.0.0.1:3000/hook",
  "http://127.0.0.1:3000/hook?a=1",
  "http://127.0.0.1:3000/s1",
  "http://127.0.0.1:4000/x",
];

function fact(next: () => number): DeliveryFact {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const f: DeliveryFact = {
    target: pick(TARGETS),
    url: pick(URLS),
    source: pick(["forward", "relay", "replay"] as const),
    outcome: pick(["delivered", "retrying", "failed"] as const),
  };
  if (next() < 0.7) f.status = pick([200, 204, 500, 503]);
  if (next() < 0.2) f.refused = true;
  return f;
}

Deno.test("a fold, record by record, says what eventDelivery says of the same records (every prefix)", () => {
  const next = random(36);
  let compared = 0;
  for (let run = 0; run < 400; run++) {
    const subject = SUBJECTS[run % SUBJECTS.length]!;
    const facts = Array.from({ length: 1 + Math.floor(next() * 12) }, () => fact(next));
    const fold = newFold(subjectOf(subject));
    assert.deepEqual(foldedDelivery(fold), eventDelivery(subject, []));
    for (let i = 0; i < facts.length; i++) {
      foldFact(fold, facts[i]!);
      assert.deepEqual(
        foldedDelivery(fold),
        eventDelivery(subject, facts.slice(0, i + 1)),
        `run ${run}, ${i}`,
      );
      compared++;
    }
  }
  assert.ok(compared > 2000);
});

Deno.test("a fold keeps a few facts per target, however many records it folds", () => {
  const subject = SUBJECTS[1]!;
  const fold = newFold(subjectOf(subject));
  const next = random(7);
  for (let i = 0; i < 10_000; i++) foldFact(fold, fact(next));
  const held = new Set<DeliveryFact>();
  for (const b of [...fold.targets, ...fold.others.values()]) {
    for (const f of [b.last, b.delivered, b.lastAttempt, b.lastOwn]) if (f) held.add(f);
  }
  if (fold.last) held.add(fold.last);
  assert.ok(held.size <= 4 * (fold.targets.length + fold.others.size) + 1, `${held.size} facts held`);
  assert.ok(fold.others.size <= TARGETS.length);
});

Deno.test("subjectOf() keeps the mark and the id, never the body", () => {
  const s = subjectOf({ ...SUBJECTS[5]!, body: "x".repeat(100) } as DeliverySubject);
  assert.deepEqual(Object.keys(s).sort(), ["forward", "id", "params", "query", "receivedAt"]);
});
