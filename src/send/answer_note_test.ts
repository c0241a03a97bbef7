import assert from "node:assert/strict";
import { RELAY_BODY_MAX, relayRefusal, senderGot, senderStatus, sentPhrase } from "./answer_note.ts";

Deno.test("what a relayed sender got, from its record: the app's answer, hooktap's 502 or 503, or nothing", () => {
  const cases: [Parameters<typeof senderGot>[0], string, number | undefined][] = [
    [{ status: 200, bodySize: 10 }, "passed on to the sender", undefined],
    // dev stopped before the app answered: the sender got hooktap's 502, the app's answer is recorded.
    [
      { status: 200, bodySize: 10, senderStatus: 502 },
      "the sender got hooktap's 502 (dev stopped before the answer came)",
      502,
    ],
    [{}, "the sender got hooktap's 502 (no answer)", 502],
    [{ status: 99 }, "the sender got hooktap's 502 (not an HTTP status)", 502],
    // Written before `senderStatus`: told by the size.
    [
      { status: 200, bodySize: RELAY_BODY_MAX + 1 },
      "the sender got hooktap's 502 (a body over 64.0 MiB)",
      502,
    ],
    [
      { status: 200, bodySize: RELAY_BODY_MAX + 1, senderStatus: 502 },
      "the sender got hooktap's 502 (a body over 64.0 MiB)",
      502,
    ],
    [
      { status: 200, bodySize: 60 * 1024 * 1024, senderStatus: 503 },
      "the sender got hooktap's 503 (relayed answers in memory over 128.0 MiB)",
      503,
    ],
    [
      { status: 200, senderLeft: true },
      "the sender had hung up before the answer: it reached no one",
      undefined,
    ],
  ];
  for (const [record, said, status] of cases) {
    assert.equal(senderGot(record), said, JSON.stringify(record));
    assert.equal(senderStatus(record), status, JSON.stringify(record));
  }
  assert.equal(relayRefusal({ status: 200, senderStatus: 503 }), "busy");
  assert.equal(sentPhrase(undefined), "");
  assert.equal(sentPhrase(503), ", the sender got hooktap's 503");
  assert.equal(sentPhrase("left"), ", the sender had hung up");
});
