import assert from "node:assert/strict";
import { UsageError } from "../errors.ts";
import { buildEvent } from "../event/record.ts";
import {
  applyHeaderOverrides,
  applySets,
  applyUnsets,
  keepPlaces,
  parseHeaderOption,
  setJsonField,
  splitStep,
  stepMatches,
} from "./overrides.ts";
import { prepareRequest } from "./prepare.ts";
import { replayUrl } from "./to_url.ts";

const EVENT = buildEvent({
  id: "evt_20240501_01HWSP3MM06FBZC4W1PNMV4KMH",
  endpoint: "default",
  receivedAt: new Date("2024-05-01T10:00:00Z"),
  method: "POST",
  path: "/webhook",
  query: "a=1",
  headers: [
    ["Host", "abc.ngrok.app"],
    ["Content-Type", "application/json"],
    ["Connection", "keep-alive"],
    ["Transfer-Encoding", "chunked"],
    ["Proxy-Authorization", "x"],
    ["Content-Length", "2"],
    ["X-Dup", "1"],
    ["x-DUP", "2"],
  ],
  body: new Uint8Array([0xff, 0x00]),
  remoteAddr: "127.0.0.1",
});
const URL_ = new URL("http://127.0.0.1:3000/h");

Deno.test("prepareRequest() drops hop-by-hop, proxy-* and host, keeps the rest in order and case, adds nothing", async () => {
  const r = await prepareRequest(EVENT, URL_);
  assert.deepEqual(r.headers, [
    ["Content-Type", "application/json"],
    ["Content-Length", "2"],
    ["X-Dup", "1"],
    [
      "x-DUP",
      "2",
    ],
  ]);
  assert.deepEqual(r.body, new Uint8Array([0xff, 0x00]));
});

Deno.test("-H replaces every header of a name in the place of the first, adds new ones at the end, removes with an empty value", () => {
  const got = applyHeaderOverrides(EVENT.headers.slice(1, 2).concat(EVENT.headers.slice(6)), [
    ["x-dup", "3"],
    ["X-New", "n"],
    ["content-type", ""],
  ]);
  assert.deepEqual(got, [["X-Dup", "3"], ["X-New", "n"]]);
});

Deno.test("a changed body gets its Content-Length in place; -X GET sends no body and no Content-Length", async () => {
  const json = buildEvent({
    ...EVENT,
    headers: [["Content-Length", "7"], ["Content-Type", "application/json"]],
    body: new TextEncoder().encode('{"a":1}'),
    receivedAt: new Date(),
  });
  const set = await prepareRequest(json, URL_, { overrides: { set: ["a=12345"] } });
  assert.deepEqual(set.headers, [["Content-Length", "11"], ["Content-Type", "application/json"]]);
  const get = await prepareRequest(json, URL_, { overrides: { method: "GET" } });
  assert.equal(get.body, null);
  assert.deepEqual(get.headers, [["Content-Type", "application/json"]]);
});

Deno.test("--set refuses a missing JSON path unless --set-new, and sets form fields in a form body", () => {
  const body = new TextEncoder().encode('{"a":{"b":1}}');
  assert.throws(() => applySets(body, "application/json", ["a.c=2"]), /no field "a.c".*--set-new/);
  assert.equal(
    new TextDecoder().decode(applySets(body, "application/json", ["a.c=2"], true)),
    '{"a":{"b":1,"c":2}}',
  );
  const form = new TextEncoder().encode("payload=%7B%7D&x=1");
  assert.equal(
    new TextDecoder().decode(applySets(form, "application/x-www-form-urlencoded", ["x=2"])),
    "payload=%7B%7D&x=2",
  );
  assert.throws(() => applySets(form, "application/x-www-form-urlencoded", ["y=2"]), /no field "y"/);
});

Deno.test("--set reads values as JSON or text, reaches array items, keeps the indentation, names what is there", () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  const dec = (b: Uint8Array) => new TextDecoder().decode(b);
  const body = enc('{\n    "a": {\n        "b": 1,\n        "list": [{ "c": 1 }]\n    }\n}');
  const out = JSON.parse(
    dec(applySets(body, "application/json", ["a.b=2", "a.list[0].c=x", 'a.list[0].d={"e":[1]}'], true)),
  );
  assert.deepEqual(out, { a: { b: 2, list: [{ c: "x", d: { e: [1] } }] } });
  assert.match(dec(applySets(body, "application/json", ["a.b=2"])), /^\{\n {4}"a": \{\n {8}"b": 2,/);
  assert.equal(dec(applySets(enc('{"a":1}'), undefined, ["a=true"])), '{"a":true}');
  assert.throws(
    () => applySets(body, "application/json", ["a.x=1"]),
    /no field "a\.x" \(a has b, list\); check the path, or add --set-new/,
  );
  assert.throws(() => applySets(body, "application/json", ["a.b.c=1"]), /"a\.b" is not an object/);
  assert.throws(() => applySets(body, "application/json", ["nothing"]), /--set expects path=value/);
  assert.throws(() => applySets(body, "application/json", ["=1"]), /--set expects path=value/);
  assert.throws(() => applySets(enc("\x00binary"), "application/octet-stream", ["a=1"]), /--body-file/);
  // --set-new creates the missing parents of a path; the caller's object is the one changed.
  const root = { a: {} };
  setJsonField(root, "a.b.c", 5, true);
  assert.deepEqual(root, { a: { b: { c: 5 } } });
});

Deno.test("--set on a form body: the value as typed, encoded, first occurrence in place; --set-new appends", () => {
  const form = new TextEncoder().encode("A=1&B=2&B=3");
  const type = "application/x-www-form-urlencoded; charset=utf-8";
  const dec = (b: Uint8Array) => new TextDecoder().decode(b);
  assert.equal(dec(applySets(form, type, ["B=x y"])), "A=1&B=x+y");
  assert.equal(dec(applySets(form, type, ["C=30008"], true)), "A=1&B=2&B=3&C=30008");
  assert.throws(
    () => applySets(form, type, ["Z=1"]),
    /form body has no field "Z" \(fields: A, B\).*--set-new/,
  );
});

Deno.test("keepPlaces() puts re-signed headers back where and how the sender wrote them", () => {
  const original: [string, string][] = [["stripe-signature", "old"], ["Content-Type", "a"]];
  const signed: [string, string][] = [["Content-Type", "a"], ["Stripe-Signature", "new"]];
  assert.deepEqual(keepPlaces(original, signed), [["stripe-signature", "new"], ["Content-Type", "a"]]);
  assert.deepEqual(keepPlaces([["A", "1"]], [["A", "1"], ["X-Sig", "s"]]), [["A", "1"], ["X-Sig", "s"]]);
});

Deno.test("parseHeaderOption() reads `Name: value` and rejects anything else", () => {
  assert.deepEqual(parseHeaderOption("Authorization: Bearer a:b"), ["Authorization", "Bearer a:b"]);
  assert.deepEqual(parseHeaderOption("X-Drop:"), ["X-Drop", ""]);
  assert.throws(() => parseHeaderOption("no colon"), /-H expects "Name: value"/);
  assert.throws(() => parseHeaderOption("bad name: x"), /-H expects/);
});

Deno.test("parseHeaderOption() refuses a value with a control character but HTAB, or beyond Latin-1; keeps tabs and obs-text", () => {
  for (
    const [value, code] of [["\x1b]8;;http://evil\x07", "U+001B"], ["a\x00b", "U+0000"], ["a\x7f", "U+007F"]]
  ) {
    assert.throws(
      () => parseHeaderOption(`X-A: ${value}`),
      (e: Error) =>
        e instanceof UsageError &&
        e.message === `-H X-A: the value has a control character (${code}); a header value is one line of ` +
            "Latin-1 text: visible characters, spaces and tabs.",
    );
  }
  assert.throws(() => parseHeaderOption("X-A: a\nb"), /-H X-A: the value has a line break \(U\+000A\)/);
  assert.throws(() => parseHeaderOption("X-A: 5 \u20ac"), /beyond Latin-1 \(U\+20AC\)/);
  assert.deepEqual(parseHeaderOption("X-A: a\tb caf\u00e9 \x80"), ["X-A", "a\tb caf\u00e9 \x80"]);
});

Deno.test("replayUrl() keeps the event's query only when --to has none", () => {
  assert.equal(replayUrl(EVENT, "http://localhost:3000/h").href, "http://localhost:3000/h?a=1");
  assert.equal(replayUrl(EVENT, "http://localhost:3000/h?b=2").href, "http://localhost:3000/h?b=2");
  assert.throws(() => replayUrl(EVENT, "localhost:3000"), /--to needs a scheme/);
  assert.throws(() => replayUrl(EVENT, "ftp://x/"), /http:\/\/ or https:\/\//);
});

Deno.test("splitStep: a STEP: scope before the =, none when the colon is in the value", () => {
  assert.deepEqual(splitStep("invoice.paid:data.object.amount_paid=0"), {
    step: "invoice.paid",
    rest: "data.object.amount_paid=0",
  });
  assert.deepEqual(splitStep("3:data.object.metadata"), { step: "3", rest: "data.object.metadata" });
  assert.deepEqual(splitStep("data.object.url=http://x"), { rest: "data.object.url=http://x" });
  assert.deepEqual(splitStep(":a=1"), { rest: ":a=1" });
  assert.equal(stepMatches(undefined, 4, "x"), true);
  assert.equal(stepMatches("2", 1, "x"), true);
  assert.equal(stepMatches("2", 0, "x"), false);
  assert.equal(stepMatches("invoice.paid", 7, "invoice.paid"), true);
  assert.equal(stepMatches("invoice.paid", 7, "invoice.created"), false);
});

Deno.test("applyUnsets removes JSON fields (array elements spliced) and form fields; a missing one is refused", () => {
  const enc = (v: unknown, indent?: number) => new TextEncoder().encode(JSON.stringify(v, null, indent));
  const out = applyUnsets(enc({ a: { b: 1, c: [1, 2, 3] }, d: 2 }, 2), "application/json", ["a.b", "a.c[1]"]);
  assert.equal(new TextDecoder().decode(out), JSON.stringify({ a: { c: [1, 3] }, d: 2 }, null, 2));
  const form = applyUnsets(new TextEncoder().encode("a=1&b=2&a=3"), "application/x-www-form-urlencoded", [
    "a",
  ]);
  assert.equal(new TextDecoder().decode(form), "b=2");
  assert.throws(
    () => applyUnsets(enc({ a: { b: 1 } }), "application/json", ["a.x"]),
    (e: Error) =>
      e instanceof UsageError && /--unset a\.x: the body has no field "a\.x" \(a has b\)/.test(e.message),
  );
  assert.throws(
    () => applyUnsets(new TextEncoder().encode("not json"), "text/plain", ["a"]),
    (e: Error) => e instanceof UsageError && /neither/.test(e.message),
  );
});
