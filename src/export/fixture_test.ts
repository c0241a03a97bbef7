import assert from "node:assert/strict";
import type { CapturedEvent } from "../event/record.ts";
import { parseEventLine } from "../event/record.ts";
import { MASKED_SIGNATURE, maskSignatures, SIGNATURE_HEADER_NAMES, toFixtureLines } from "./fixture.ts";

const EVENT: CapturedEvent = {
  v: 1,
  id: "evt_20260101_01J0000000000000000000TEST",
  endpoint: "hooks",
  receivedAt: "2026-01-01T00:00:00.000Z",
  method: "POST",
  path: "/hooks",
  query: "",
  headers: [
    ["X-Hub-Signature", "sha1=aaa"],
    ["x-hub-signature-256", "sha256=bbb"],
    ["Stripe-Signature", "t=1,v1=ccc"],
    ["X-Shopify-Hmac-Sha256", "ddd"],
    ["X-Slack-Signature", "v0=eee"],
    ["webhook-signature", "v1,fff"],
    ["svix-signature", "v1,ggg"],
    ["X-Twilio-Signature", "hhh"],
    ["X-Signature-Ed25519", "iii"],
    ["X-GitHub-Event", "push"],
    ["X-Slack-Request-Timestamp", "1700000000"],
  ],
  body: "{}",
  bodyEncoding: "utf8",
  bodySize: 2,
  remoteAddr: "127.0.0.1",
  verdict: { status: "valid", scheme: "github-sha256" },
};

Deno.test("toFixtureLines masks every signature header, any case, and keeps the rest of the record", () => {
  const text = toFixtureLines([EVENT, EVENT]);
  const lines = text.split("\n");
  assert.equal(lines.length, 3);
  assert.equal(lines[2], "");
  const parsed = parseEventLine(lines[0]!);
  assert.ok(parsed);
  for (const secret of ["aaa", "bbb", "ccc", "ddd", "eee", "fff", "ggg", "hhh", "iii"]) {
    assert.ok(!text.includes(secret), `${secret} leaked into the fixture`);
  }
  assert.deepEqual(parsed.headers.slice(0, 9).map(([, v]) => v), Array(9).fill(MASKED_SIGNATURE));
  assert.deepEqual(parsed.headers.slice(9), [["X-GitHub-Event", "push"], [
    "X-Slack-Request-Timestamp",
    "1700000000",
  ]]);
  assert.deepEqual({ ...parsed, headers: [] }, { ...EVENT, headers: [] });
});

Deno.test("maskSignatures takes its own list of header names and leaves the input record alone", () => {
  const masked = maskSignatures(EVENT, ["X-GitHub-Event"]);
  assert.equal(masked.headers[9]?.[1], MASKED_SIGNATURE);
  assert.equal(masked.headers[0]?.[1], "sha1=aaa");
  assert.equal(EVENT.headers[9]?.[1], "push");
  assert.ok(SIGNATURE_HEADER_NAMES.every((n) => n === n.toLowerCase()));
});
