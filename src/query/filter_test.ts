import assert from "node:assert/strict";
import { parseDuration, parseSince } from "./filter.ts";

Deno.test("parseDuration() reads ms, s, m, h, d, w, combinations and bare numbers", () => {
  assert.equal(parseDuration("500ms"), 500);
  assert.equal(parseDuration("30s"), 30_000);
  assert.equal(parseDuration("1h30m"), 5_400_000);
  assert.equal(parseDuration("2d"), 172_800_000);
  assert.equal(parseDuration("1.5"), 1500);
  assert.equal(parseDuration("250", "ms"), 250);
  assert.equal(parseDuration("soon"), undefined);
});

Deno.test("parseSince() takes a duration back from now or an ISO time, and rejects the rest", () => {
  const now = new Date("2024-05-01T12:00:00Z");
  assert.equal(parseSince("10m", now).toISOString(), "2024-05-01T11:50:00.000Z");
  assert.equal(parseSince("2024-04-30T08:00:00Z", now).toISOString(), "2024-04-30T08:00:00.000Z");
  assert.throws(() => parseSince("10", now), /--since must be/);
  assert.throws(() => parseSince("yesterday", now), /--since must be/);
});

import { buildEvent, type CapturedEvent } from "../event/record.ts";
import { compileFilter, type EventFilter, parseDeliveryState } from "./filter.ts";

function ev(body: string | Uint8Array, headers: [string, string][] = [], query = ""): CapturedEvent {
  return buildEvent({
    id: "evt_20240501_01HWXYZ0000000000000000000",
    endpoint: "github",
    receivedAt: new Date("2024-05-01T10:00:00Z"),
    method: "POST",
    path: "/hook",
    query,
    headers,
    body: typeof body === "string" ? new TextEncoder().encode(body) : body,
    remoteAddr: "127.0.0.1",
  });
}

/** Both tests, as a scanner runs them: the line test (anchor, then the rest) and the exact one. */
function passes(event: CapturedEvent, filter: EventFilter): { line: boolean; exact: boolean } {
  const f = compileFilter(filter);
  const text = JSON.stringify(event);
  const candidate = f.anchor === undefined || f.anchor.test(text) ||
    (f.alsoLinesWith !== undefined && text.includes(f.alsoLinesWith));
  const line = candidate && f.line(text);
  return { line, exact: f.event(event) };
}

function assertMatch(event: CapturedEvent, filter: EventFilter, expected: boolean) {
  const got = passes(event, filter);
  assert.equal(got.exact, expected, `exact test of ${JSON.stringify(filter)}`);
  // The line test may let more through, never fewer.
  if (expected) assert.ok(got.line, `line test of ${JSON.stringify(filter)} rejected a match`);
}

Deno.test("--grep is smart-case: any case for a lower-case term, exact with a capital", () => {
  const e = ev('{"customer":"Customer_42"}');
  assertMatch(e, { grep: "customer_42" }, true);
  assertMatch(e, { grep: "Customer_42" }, true);
  assertMatch(e, { grep: "CUSTOMER_42" }, false);
  assertMatch(e, { grep: "customer_43" }, false);
});

Deno.test("--grep finds text holding JSON escapes (quotes, backslashes, newlines, non-ASCII)", () => {
  const e = ev('say "hi"\\there\nnext line: café ✓');
  assertMatch(e, { grep: 'say "hi"' }, true);
  assertMatch(e, { grep: "\\there\nnext" }, true);
  assertMatch(e, { grep: "CAFÉ ✓" }, false);
  assertMatch(e, { grep: "café ✓" }, true);
  assertMatch(e, { grep: "cafÉ" }, false); // a capital: exact case
});

Deno.test("--grep searches a base64 body as the bytes it stands for, not the base64 text", () => {
  const bytes = new Uint8Array([0xff, 0xfe, ...new TextEncoder().encode("hidden_token_9"), 0x00, 0x80]);
  const e = ev(bytes);
  assert.equal(e.bodyEncoding, "base64");
  assertMatch(e, { grep: "hidden_token_9" }, true);
  assertMatch(e, { grep: "HIDDEN_TOKEN_9" }, false);
  assertMatch(e, { grep: e.body.slice(4, 12) }, false); // a piece of the base64 text itself
});

Deno.test("--grep looks at header values and the query, not header names", () => {
  const e = ev("{}", [["X-Request-Id", "req_77"]], "ref=abc_9");
  assertMatch(e, { grep: "req_77" }, true);
  assertMatch(e, { grep: "abc_9" }, true);
  assertMatch(e, { grep: "x-request-id" }, false);
});

Deno.test("--where matches nested fields, numbers, booleans, null, != and presence", () => {
  const e = ev(
    '{"action":"opened","data":{"object":{"id":"cus_42","amount":100,"live":false,"note":null}},' +
      '"items":[{"sku":"a"}]}',
  );
  assertMatch(e, { where: ["action=opened"] }, true);
  assertMatch(e, { where: ["data.object.id=cus_42"] }, true);
  assertMatch(e, { where: ["data.object.id=cus_4"] }, false);
  assertMatch(e, { where: ["data.object.amount=100"] }, true);
  assertMatch(e, { where: ["data.object.amount=1e2"] }, true);
  assertMatch(e, { where: ["data.object.amount=10"] }, false);
  assertMatch(e, { where: ["data.object.live=false"] }, true);
  assertMatch(e, { where: ["data.object.note=null"] }, true);
  assertMatch(e, { where: ["items.0.sku=a"] }, true);
  assertMatch(e, { where: ["action!=closed"] }, true);
  assertMatch(e, { where: ["action!=opened"] }, false);
  assertMatch(e, { where: ["missing!=x"] }, true);
  assertMatch(e, { where: ["data.object"] }, true);
  assertMatch(e, { where: ["data.nope"] }, false);
  assertMatch(e, { where: ["action=opened", "data.object.id=cus_42"] }, true);
  assertMatch(e, { where: ["action=opened", "data.object.id=cus_1"] }, false);
});

Deno.test("--where sees through escapes in the body's JSON", () => {
  const e = ev('{"action":"\\u006fpened","q":"a\\"b"}');
  assertMatch(e, { where: ["action=opened"] }, true);
  assertMatch(e, { where: ['q=a"b'] }, true);
  assertMatch(ev("not json"), { where: ["a=b"] }, false);
});

Deno.test("--header matches any repeat, the name in any case, the value exactly", () => {
  const e = ev("{}", [["X-GitHub-Event", "ping"], ["x-github-event", "push"]]);
  assertMatch(e, { header: ["x-github-event=push"] }, true);
  assertMatch(e, { header: ["X-GITHUB-EVENT: ping"] }, true);
  assertMatch(e, { header: ["X-GitHub-Event=Push"] }, false);
  assertMatch(e, { header: ["X-GitHub-Event"] }, true);
  assertMatch(e, { header: ["X-Other"] }, false);
});

Deno.test("filters combine (and) with method, endpoint, time, provider fields", () => {
  const e = { ...ev('{"a":1}'), provider: "github", type: "push", verdict: { status: "valid" as const } };
  assertMatch(e, { endpoint: "github", method: "post", grep: "a" }, true);
  assertMatch(e, { endpoint: "stripe", grep: "a" }, false);
  assertMatch(e, { method: "PUT" }, false);
  assertMatch(e, { since: new Date("2024-05-01T09:00:00Z"), until: new Date("2024-05-01T11:00:00Z") }, true);
  assertMatch(e, { until: new Date("2024-05-01T10:00:00Z") }, false);
  assertMatch(e, { provider: "github", type: "push", verdict: "valid" }, true);
  assertMatch(e, { verdict: "invalid" }, false);
});

Deno.test("--provider generic picks the events of no known sender (they carry no provider)", () => {
  const unknown = ev('{"a":1}');
  const github = { ...ev('{"a":1}'), provider: "github", type: "push" };
  assertMatch(unknown, { provider: "generic" }, true);
  assertMatch(github, { provider: "generic" }, false);
  assertMatch(unknown, { provider: "github" }, false);
});

Deno.test("a type prefix ends at the sender's own separator: '.', '/' (Shopify's orders/create) or a space", () => {
  const typed = (type: string) => ({ ...ev('{"a":1}'), provider: "shopify", type });
  assertMatch(typed("orders/create"), { type: "orders" }, true);
  assertMatch(typed("orders/create"), { type: "orders/create" }, true);
  assertMatch(typed("orders_edited"), { type: "orders" }, false);
  assertMatch(typed("orders/create"), { type: "order" }, false);
  assertMatch(typed("issues.opened"), { type: "issues" }, true);
  assertMatch(typed("event_callback message"), { type: "event_callback" }, true);
  assertMatch(typed("issue_comment"), { type: "issue" }, false);
});

Deno.test("a malformed --where or --header is a usage error naming the fix", () => {
  assert.throws(() => compileFilter({ where: ["=x"] }), /--where must look like field=value/);
  assert.throws(() => compileFilter({ where: ["a..b=x"] }), /--where must/);
  assert.throws(() => compileFilter({ header: ["bad name=x"] }), /--header must look like Name=value/);
});

Deno.test("a delivery state filter asks the reader's deliveryOf, and cannot be compiled without one", () => {
  const sent = ev('{"a":1}');
  const kept = { ...ev('{"a":2}'), id: "evt_20240501_01HWXYZ0000000000000000001" };
  const deliveryOf = (e: CapturedEvent) => e.id === sent.id ? "failed" as const : "none" as const;
  const failed = compileFilter({ delivery: "failed", grep: "a" }, { deliveryOf });
  assert.deepEqual([failed.event(sent), failed.event(kept)], [true, false]);
  assert.equal(compileFilter({ delivery: "none" }, { deliveryOf }).event(kept), true);
  assert.equal(parseDeliveryState(" Retrying "), "retrying");
  assert.throws(() => parseDeliveryState("lost"), /--delivery must be one of none, pending, delivered/);
  assert.throws(() => compileFilter({ delivery: "failed" }), /needs the deliveries log/);
});

Deno.test("filter path: exact, or a prefix ending in *, on the line test and the exact one", () => {
  const e = ev("{}");
  assert.deepEqual(passes(e, { path: "/hook" }), { line: true, exact: true });
  assert.deepEqual(passes(e, { path: "/ho*" }), { line: true, exact: true });
  assert.equal(passes(e, { path: "/ho" }).exact, false);
  assert.equal(passes(e, { path: "/other*" }).exact, false);
});
