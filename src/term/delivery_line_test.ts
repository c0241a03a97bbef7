import assert from "node:assert/strict";
import { formatDelivery, givenUpNote, movedNote, movedTarget } from "./delivery_line.ts";
import { createColors } from "./colors.ts";
import type { Output } from "./output.ts";
import { type DeliveryRecord, targetNameOf } from "../event/delivery.ts";
import type { GivenUp } from "../send/undelivered.ts";

const output = { colors: createColors(false), errColors: createColors(false) } as unknown as Output;

const record = (over: Partial<DeliveryRecord>): DeliveryRecord => ({
  v: 2,
  id: "dlv_1",
  event: "evt_20261128_01M8J2YNGYBVP0TVRFKHK8DQPD",
  endpoint: "a",
  source: "forward",
  target: "app",
  url: "http://127.0.0.1:3000/hook",
  method: "POST",
  attempt: 1,
  startedAt: "2026-11-28T22:00:00.000Z",
  durationMs: 3,
  outcome: "failed",
  status: 500,
  statusText: "Internal Server Error",
  headers: [["content-encoding", "gzip"]],
  bodyEncoding: "utf8",
  ...over,
});

Deno.test("formatDelivery under a cut answer: the first 64 KiB kept, or what decoded of a compressed one", () => {
  const cut = formatDelivery(
    record({ headers: [], body: "boom", bodySize: 5 * 1024 * 1024, truncated: true }),
    output,
    {
      runner: "hooktap",
    },
  );
  assert.match(cut, /inspect evt_\w+ shows its first 64\.0 KiB of the 5\.0 MiB answer/);
  // A gzip answer that stopped decoding after 200 bytes (damaged, or cut): its record keeps those 200 bytes,
  // not 64 KiB of it.
  const damaged = formatDelivery(
    record({ body: "x".repeat(200), bodySize: 1200, truncated: true, decodedFrom: "gzip" }),
    output,
    { runner: "hooktap" },
  );
  assert.doesNotMatch(damaged, /first 64\.0 KiB/);
  assert.match(damaged, /inspect evt_\w+ shows its decoded start \(up to 64\.0 KiB\) of the 1\.2 KiB answer/);
});

Deno.test("formatDelivery: a 401/403 for an event whose signature checks asks whether the app's secret is the same", () => {
  const valid = { event: { verdict: { status: "valid" } } } as unknown as object;
  const refused = formatDelivery(record({ status: 401, headers: [] }), output, {
    runner: "hooktap",
    ...valid,
  });
  assert.match(
    refused,
    /signature checks with the endpoint's secret: does your app verify with the same one\?/,
  );
  const forbidden = formatDelivery(record({ status: 403, headers: [] }), output, {
    runner: "hooktap",
    ...valid,
  });
  assert.match(forbidden, /does your app verify with the same one/);
  // Not for another status, nor for an event whose signature was not checked or failed.
  assert.doesNotMatch(formatDelivery(record({ status: 500, headers: [] }), output, valid), /same one/);
  for (const status of ["invalid", "unverified"]) {
    const other = { event: { verdict: { status } } } as unknown as object;
    assert.doesNotMatch(formatDelivery(record({ status: 401, headers: [] }), output, other), /same one/);
  }
});

Deno.test("formatDelivery: a 401 for a Twilio event says Twilio signs the URL it called, not the app's", () => {
  const twilio = { event: { provider: "twilio", verdict: { status: "valid" } } } as unknown as object;
  const line = formatDelivery(record({ status: 401, headers: [] }), output, { runner: "hooktap", ...twilio });
  assert.match(line, /Twilio signs the URL it called, not your app's: .*replay with --resign/);
  assert.doesNotMatch(line, /same one/);
  // The command it gives re-signs, as the hint says: sent as stored, the app would refuse it again.
  assert.match(line, /app's URL; gave up: hooktap replay --undelivered .*--resign sends it again/);
});

Deno.test('givenUpNote: one event is "it", several are "them"', () => {
  const group = (n: number) =>
    ({
      endpoint: "sms",
      target: "app",
      events: Array.from({ length: n }, (_, i) => `evt_${i}`),
    }) satisfies GivenUp;
  assert.match(
    givenUpNote(group(1), { runner: "hooktap" }),
    /^1 event of endpoint sms .* sends it again\.\n$/,
  );
  assert.match(
    givenUpNote(group(2), { runner: "hooktap" }),
    /^2 events of endpoint sms .* sends them again\.\n$/,
  );
});

Deno.test("movedTarget: an unnamed target whose URL was edited moved; a named one removed beside others did not", () => {
  const to = (url: string) => ({ name: targetNameOf(url), to: url });
  const now = [to("http://localhost:3001/webhooks/stripe")];
  assert.equal(movedTarget("localhost:3000/webhooks/stripe", now), now[0]);
  assert.equal(movedTarget("localhost:3001/webhooks/stripe", now), undefined, "not removed");
  assert.equal(movedTarget("b", now), undefined, "a named target is another destination");
  assert.equal(
    movedTarget("localhost:3000/a", [...now, to("http://localhost:3002/c")]),
    undefined,
    "two now",
  );
  assert.equal(movedTarget("localhost:3000/a", [{ name: "ci", to: "http://localhost:3001/a" }]), undefined);
});

Deno.test("movedNote: the --to it gives is quoted for the shell, as the command above it is", () => {
  const note = movedNote("localhost:3000/hook", "shop", "http://localhost:3001/hook?a=1&b=2", 2);
  assert.match(note, /with --to 'http:\/\/localhost:3001\/hook\?a=1&b=2' the command sends them there/);
  assert.match(
    movedNote("localhost:3000/a", "shop", "http://localhost:3001/a", 1),
    /--to http:\/\/localhost:3001\/a /,
  );
});
