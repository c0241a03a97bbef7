import assert from "node:assert/strict";
import { type WireEvent, wirePollProblem } from "./wire.ts";

const event = (over: Partial<WireEvent> = {}): WireEvent => ({
  seq: 1,
  receivedAt: "2026-01-01T00:00:00.000Z",
  method: "POST",
  path: "/gh",
  query: "a=1",
  headers: [["X-Sig", "v\tw"]],
  remoteAddr: "127.0.0.1",
  body: btoa("{}"),
  answer: false,
  ...over,
});

Deno.test("the hub client refuses a batch it should not write: ids, methods, headers, paths, bodies, times", () => {
  assert.equal(wirePollProblem({ head: 2, events: [event(), event({ seq: 2 })] }), undefined);
  const bad: [unknown, RegExp][] = [
    [{ head: 1, events: [event({ seq: 2 }), event({ seq: 1 })] }, /out of order/],
    [{ head: 1, events: [event({ method: "PO ST" })] }, /bad method/],
    [{ head: 1, events: [event({ path: "/a\u001b[31m" })] }, /bad path/],
    [{ head: 1, events: [event({ path: "relative" })] }, /bad path/],
    [{ head: 1, events: [event({ headers: [["Bad Name", "x"]] })] }, /bad headers/],
    [{ head: 1, events: [event({ headers: [["X", "a\r\nInjected: 1"]] })] }, /bad headers/],
    [{ head: 1, events: [event({ body: "not base64!" })] }, /bad or oversize body/],
    [{ head: 1, events: [event({ receivedAt: "yesterday" })] }, /bad time/],
    [{ head: 1, events: [event({ seq: 1.5 })] }, /out of order/],
    [{ head: "1", events: [] }, /no head/],
    [{ head: 1, events: [], low: -1 }, /low mark/],
  ];
  for (const [poll, why] of bad) {
    assert.match(wirePollProblem(poll) ?? "accepted", why, JSON.stringify(poll).slice(0, 80));
  }
  assert.match(
    wirePollProblem({ head: 3, events: [event({ seq: 3 })] }, 3) ?? "accepted",
    /out of order/,
    "at or before the cursor",
  );
});

Deno.test("a new channel id never starts with '-' (it would read as an option on a command line)", async () => {
  const { newChannelId, CHANNEL_ID } = await import("./token.ts");
  for (let i = 0; i < 5000; i++) {
    const id = newChannelId();
    if (id.startsWith("-") || !CHANNEL_ID.test(id)) throw new Error(`bad channel id ${id}`);
  }
});

Deno.test("a bad event in a good envelope is the event's problem alone; a bad envelope refuses the batch", async () => {
  const { wireBatchProblem, wireEventProblem } = await import("./wire.ts");
  const longName = event({ seq: 2, headers: [["x".repeat(300), "v"]] });
  const poll = { head: 3, events: [event(), longName, event({ seq: 3 })] };
  assert.equal(wireBatchProblem(poll, 0), undefined, "the envelope is fine: each event is judged alone");
  assert.equal(wireEventProblem(poll.events[0]!), undefined);
  assert.equal(
    wireEventProblem(longName),
    "bad headers (a header name of 300 characters; 1 to 256 are allowed)",
  );
  assert.equal(
    wireEventProblem(event({ method: "P".repeat(40) })),
    "a bad method (40 characters; 1 to 32 are allowed)",
  );
  assert.equal(
    wireEventProblem(event({ headers: [["X", "a\nb"]] })),
    "bad headers (a header value with a CR, LF or NUL)",
  );
  assert.match(wirePollProblem(poll) ?? "accepted", /^event 2: bad headers/);
  for (const bad of [null, [], { head: 1 }, { head: 3, events: [event({ seq: 2 }), event({ seq: 2 })] }]) {
    assert.notEqual(wireBatchProblem(bad, 0), undefined, JSON.stringify(bad).slice(0, 60));
  }
  assert.match(wireBatchProblem({ head: 3, events: [event({ seq: 1 }), 7] }, 0) ?? "", /not an object/);
});
