import assert from "node:assert/strict";
import type { CapturedEvent } from "../event/record.ts";
import { toReceivedEvent } from "./event.ts";
import { matches } from "./wait_for.ts";

const RECORD: CapturedEvent = {
  v: 1,
  id: "evt_20260101_01J0000000000000000000TEST",
  endpoint: "github",
  receivedAt: "2026-01-01T00:00:00.000Z",
  method: "POST",
  path: "/github",
  query: "",
  headers: [["Set-Cookie", "a=1"], ["Set-Cookie", "b=2"], ["X-GitHub-Event", "push"]],
  body: "//8=",
  bodyEncoding: "base64",
  bodySize: 2,
  remoteAddr: "127.0.0.1",
  provider: "github",
  type: "push",
  verdict: { status: "invalid", scheme: "github-sha256", reason: "the body was changed after signing" },
};

const { verdict: _, ...unverified } = RECORD;

Deno.test("toReceivedEvent carries the record's provider, type and verdict, which filters match on", () => {
  const event = toReceivedEvent(RECORD);
  assert.deepEqual(event.verdict, RECORD.verdict);
  assert.equal(event.provider, "github");
  assert.equal(event.type, "push");
  assert.ok(matches({ verdict: "invalid", provider: "github", type: "push" }, event));
  assert.ok(!matches({ verdict: "valid" }, event));
  assert.ok(
    !matches({ verdict: "valid" }, toReceivedEvent(unverified)),
  );
});

Deno.test("toReceivedEvent decodes base64 bodies and keeps repeated headers", () => {
  const event = toReceivedEvent(RECORD);
  assert.deepEqual(event.bytes(), new Uint8Array([0xff, 0xff]));
  assert.equal(event.size, 2);
  assert.deepEqual(event.headerAll("set-cookie"), ["a=1", "b=2"]);
  assert.deepEqual(event.headers.getSetCookie(), ["a=1", "b=2"]);
  assert.equal(event.receivedAt.getTime(), Date.UTC(2026, 0, 1));
  const copy = event.bytes();
  copy[0] = 0;
  assert.equal(event.bytes()[0], 0xff, "bytes() hands out a copy");
  assert.equal("params" in event, false, "absent optional fields stay absent");
});
