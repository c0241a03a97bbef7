import assert from "node:assert/strict";
import type { Endpoint } from "../config/types.ts";
import { createHubOrder } from "../hub/order.ts";
import type { RequestOutcome } from "../receiver/handler.ts";
import { createColors } from "./colors.ts";
import { createActivityLog } from "./dev_log.ts";
import type { Output } from "./output.ts";

/** An output that keeps each write to stdout. */
function captured(): Output & { writes: string[] } {
  const writes: string[] = [];
  const plain = createColors(false);
  return {
    writes,
    out: (text) => void writes.push(text),
    outBytes: () => {},
    err: () => {},
    stdoutIsTerminal: false,
    columns: () => undefined,
    colors: plain,
    errColors: plain,
  };
}

/** The fields of an endpoint the log reads. */
const ENDPOINT = { name: "shop", path: "/shop", methods: ["POST"] } as Partial<Endpoint> as Endpoint;
const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A stored request's outcome; `unrouted` when no forward rule took it. */
function stored(id: string, unrouted: boolean, hubSeq?: number): RequestOutcome {
  return {
    time: new Date("2026-11-28T10:00:00Z"),
    method: "POST",
    path: "/shop",
    query: "",
    status: 200,
    size: 2,
    endpoint: "shop",
    id,
    ...(unrouted ? { unrouted: { receivedAt: "2026-11-28T10:00:00.000Z" } } : {}),
    ...(hubSeq !== undefined ? { hubSeq } : {}),
  };
}

const ID = (n: number) => `evt_20261128_01JDZ0000000000000000000${n}`;

Deno.test("dev's log: 'not forwarded (no rule matched)' follows its own request's line, in the same write", async () => {
  const out = captured();
  const log = createActivityLog(out, { json: false, endpoints: [ENDPOINT] });
  log(stored(ID(1), true));
  log(stored(ID(2), false));
  await turn();
  assert.equal(out.writes.length, 1, "one write per turn");
  const lines = out.writes[0]!.trimEnd().split("\n");
  assert.equal(lines.length, 3, out.writes[0]);
  assert.match(lines[0]!, new RegExp(`POST +/shop +200 .*${ID(1)}`));
  assert.match(lines[1]!, new RegExp(`\\[${ID(1)}\\] not forwarded \\(no rule matched\\)`));
  assert.match(lines[2]!, new RegExp(ID(2)));
});

Deno.test("dev's log: a hub batch's outcome held for its turn keeps its 'not forwarded' line behind it", async () => {
  const out = captured();
  const order = createHubOrder();
  order.reset(0);
  const log = order.inOrder(createActivityLog(out, { json: true, endpoints: [ENDPOINT] }));
  log(stored(ID(2), true, 2)); // handled first, held until 1 is given
  await turn();
  assert.deepEqual(out.writes, [], "nothing of event 2 before event 1");
  log(stored(ID(1), false, 1));
  order.handled(1);
  order.handled(2);
  await turn();
  const lines = out.writes.join("").trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => [l.kind ?? "request", l.id ?? l.event]), [
    ["request", ID(1)],
    ["request", ID(2)],
    ["not-forwarded", ID(2)],
  ]);
  assert.deepEqual(lines[2], { kind: "not-forwarded", event: ID(2), endpoint: "shop", targets: [] });
});
