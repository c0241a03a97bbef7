import assert from "node:assert/strict";
import { buildEvent } from "../event/record.ts";
import { createColors } from "./colors.ts";
import { bodyKind, hexPreview, renderEvent } from "./event_view.ts";
import { headerText } from "../text/header_text.ts";
import { prettyJson } from "./json_pretty.ts";
import { safeLine } from "../text/sanitize.ts";

const plain = createColors(false);

function event(contentType: string | undefined, body: Uint8Array | string) {
  return buildEvent({
    id: "evt_20240501_01HWSP3MM06FBZC4W1PNMV4KMH",
    endpoint: "default",
    receivedAt: new Date("2024-05-01T10:00:00Z"),
    method: "POST",
    path: "/webhook",
    query: "",
    headers: contentType === undefined ? [] : [["content-type", contentType]],
    body: typeof body === "string" ? new TextEncoder().encode(body) : body,
    remoteAddr: "127.0.0.1",
  });
}

Deno.test("bodyKind() tells JSON, form, text, binary and empty bodies apart", () => {
  assert.equal(bodyKind(event("application/json", '{"a":1}')), "json");
  assert.equal(bodyKind(event("application/vnd.api+json", "[1]")), "json");
  assert.equal(bodyKind(event(undefined, ' {"untyped":true}')), "json");
  assert.equal(bodyKind(event("application/json", "{broken")), "text");
  assert.equal(bodyKind(event("application/x-www-form-urlencoded; charset=utf-8", "a=1")), "form");
  assert.equal(bodyKind(event("text/plain", "hi")), "text");
  assert.equal(bodyKind(event("application/octet-stream", new Uint8Array([0xff]))), "binary");
  assert.equal(bodyKind(event("application/json", "")), "empty");
});

Deno.test("prettyJson() re-indents without changing a token", () => {
  const text = '{"n":1.50,"big":9007199254740993,"a":[],"o":{"k":[true,null]},"k":"x","k":"dup"}';
  assert.equal(
    prettyJson(text, plain, safeLine),
    '{\n  "n": 1.50,\n  "big": 9007199254740993,\n  "a": [],\n  "o": {\n    "k": [\n      true,\n      null\n    ]\n  },\n  "k": "x",\n  "k": "dup"\n}',
  );
});

Deno.test("prettyJson() paints with colours on and escapes what the JSON text carries raw", () => {
  const painted = prettyJson('{"k":"v\u202e"}', createColors(true), safeLine);
  assert.ok(painted.includes('\x1b[34m"k"\x1b[39m'));
  assert.ok(painted.includes('"v\\u202e"'));
});

Deno.test("hexPreview() shows offset, hex and printable ASCII, at most 64 bytes", () => {
  const lines = hexPreview(new Uint8Array(100).map((_, i) => i + 0x30)).split("\n");
  assert.equal(lines.length, 4);
  assert.equal(lines[0], "00000000  30 31 32 33 34 35 36 37 38 39 3a 3b 3c 3d 3e 3f  0123456789:;<=>?");
});

Deno.test("renderEvent() escapes control characters in headers and bodies", () => {
  const e = event("text/plain", "a\x1b[2Jb\r\nc");
  e.headers.push(["x-evil", "\x1b]0;title\x07"]);
  const out = renderEvent(e, plain, new Date("2024-05-01T10:00:05Z"));
  // deno-lint-ignore no-control-regex -- looking for control characters is the point
  assert.ok(!/[\x1b\x07\r]/.test(out), JSON.stringify(out));
  assert.ok(out.includes("a\\x1b[2Jb\\r\nc"));
  assert.ok(out.includes("x-evil        \\x1b]0;title\\x07"));
});

Deno.test("inspect shows a UTF-8 header value decoded (café), and other bytes as they came", () => {
  const e = event("application/json", "{}");
  // HTTP hands the header's bytes over one per character: UTF-8 "café" arrives as "cafÃ©".
  e.headers.push(["x-name", "caf\u00c3\u00a9"], ["x-latin1", "caf\u00e9"]);
  const lines = renderEvent(e, plain).split("\n");
  assert.ok(lines.some((l) => /x-name\s+café$/.test(l)), lines.join("\n"));
  assert.ok(lines.some((l) => /x-latin1\s+café$/.test(l)), "not valid UTF-8: kept as it came");
  assert.equal(headerText("plain ascii"), "plain ascii");
  assert.equal(headerText("caf\u00c3\u00a9"), "café");
});

Deno.test("renderEvent() of an event fetched from a hub labels the response as dev's answer to the hub and says what the sender got", () => {
  const hub = { channel: "JkEMBoAeLjUoRDLxKh0fSQ", seq: 7, receivedAt: "2024-05-01T09:59:00.000Z" };
  const direct = { ...event("application/json", "{}"), provider: "github" };
  const viaHub = { ...direct, v: 2 as const, hub };
  // Received directly: the sender got hooktap's plain answer.
  assert.match(
    renderEvent(direct, plain),
    /Response\n {2}200 \{"ok":true,\.\.\.\} \(hooktap's plain answer\)/,
  );
  const plainView = renderEvent(viaHub, plain);
  assert.match(plainView, /Response \(dev's answer to the hub\)\n {2}200 \{"ok":true,\.\.\.\}/);
  assert.match(
    plainView,
    /sender got {2}the hub's 200 \{"ok":true,"hub":7\}, or this answer if it waited for it/,
  );
  const custom = renderEvent({ ...viaHub, response: { status: 202, source: "custom" as const } }, plain);
  assert.match(custom, /Response \(custom; dev's answer to the hub\)/);
  assert.match(custom, /status +202/);
  assert.match(custom, /sender got +the hub's 200 \{"ok":true,"hub":7\}/);
});
