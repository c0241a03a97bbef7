/**
 * The hub's client API against bad input from a token holder, and the
 * answers a stranger gets, against a real `hooktap hub serve` over loopback:
 * a poll's `limit` and `after` out of range get 400 (not the runtime's 500),
 * a malformed answer to a held sender is refused at the answer route and the
 * sender gets the hub's 200 (not a 500), a client removal without a token
 * gets the 401 whatever the name, every answer says `nosniff`.
 * @module
 */
import assert from "node:assert/strict";
import { withTmpDir } from "./_helpers.ts";
import { createChannel, startHub } from "./_hub.ts";
import { wirePollProblem } from "../src/hub/wire.ts";

Deno.test("hub: a poll's limit or after out of range gets 400 naming it, and the hub logs nothing", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const api = `${hub.url}/api/channels/${channel.url.split("/c/")[1]}`;
  const auth = { authorization: `Bearer ${channel.token}` };
  for (
    const [query, named] of [
      ["after=0&wait=0&limit=abc", /limit must be/],
      ["after=0&wait=0&limit=0", /limit must be/],
      ["after=0&wait=0&limit=1.5", /limit must be/],
      ["after=9007199254740991&wait=0", /after must be/],
    ] as const
  ) {
    const r = await fetch(`${api}/events?${query}&client=a`, { headers: auth });
    const body = await r.text();
    assert.equal(r.status, 400, `${query}: ${r.status} ${body}`);
    assert.match(body, named);
  }
  const ok = await fetch(`${api}/events?after=0&wait=0&limit=5000&client=a`, { headers: auth });
  assert.equal(ok.status, 200, "a limit above 1000 is served (at most 1000 sent)");
  await ok.body?.cancel();
  assert.doesNotMatch(hub.stderr(), /error:/, hub.stderr());
});

/** Holds a sender for client `bob`'s answer: resolves to its event's seq and the sender's outcome. */
async function heldSender(api: string, url: string, auth: HeadersInit) {
  const hello = await fetch(`${api}?client=bob&hello=1`, { headers: auth });
  const { head } = await hello.json() as { head: number };
  const sender = fetch(`${url}/x`, { method: "POST", body: "hi" }).then(async (r) => ({
    status: r.status,
    body: await r.text(),
  }));
  const poll = await fetch(`${api}/events?after=${head}&wait=5000&client=bob`, { headers: auth });
  const { events } = await poll.json() as { events: { seq: number; answer: boolean }[] };
  assert.equal(events.length, 1);
  assert.ok(events[0]!.answer, "the sender waits for bob's answer");
  return { seq: events[0]!.seq, sender };
}

Deno.test("hub: a malformed answer to a held sender is refused (400) and the sender gets the hub's 200, never a 500", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path, 0, ["--answer-timeout", "2s", "--max-body-size", "1KiB"]);
  const channel = await createChannel(tmp.path, hub.url);
  const api = `${hub.url}/api/channels/${channel.url.split("/c/")[1]}`;
  const auth = { authorization: `Bearer ${channel.token}` };
  const bad: [string, string, RegExp][] = [
    ["a header of three parts", '{"status":200,"headers":[["a","b","c"]],"body":"aGk="}', /headers must be/],
    ["a header name with a space", '{"status":200,"headers":[["a b","c"]],"body":"aGk="}', /headers must be/],
    ["a body not base64", '{"status":200,"headers":[],"body":"!!!"}', /body must be base64/],
    ["a status of 101", '{"status":101,"headers":[],"body":""}', /status must be/],
    [
      "a body over the hub's body limit",
      JSON.stringify({ status: 200, headers: [], body: new Uint8Array(4096).toBase64() }),
      /larger than 1024 bytes/,
    ],
    ["not JSON", "{status", /not JSON/],
  ];
  for (const [name, body, why] of bad) {
    const { seq, sender } = await heldSender(api, channel.url, auth);
    const r = await fetch(`${api}/answers/${seq}?client=bob`, { method: "POST", headers: auth, body });
    const said = await r.text();
    assert.equal(r.status, 400, `${name}: ${r.status} ${said}`);
    assert.match(said, why, name);
    const got = await sender;
    assert.equal(got.status, 200, `${name}: the sender got ${got.status} ${got.body}`);
    assert.deepEqual(JSON.parse(got.body), { ok: true, hub: seq }, `${name}: the hub's own 200`);
  }
  // A good answer still reaches its sender; headers of the connection are the hub's to set.
  const { seq, sender } = await heldSender(api, channel.url, auth);
  const answer = {
    status: 202,
    headers: [["x-app", "yes"], ["connection", "keep-alive"], ["content-length", "1"]],
    body: new TextEncoder().encode("challenge").toBase64(),
  };
  const r = await fetch(`${api}/answers/${seq}?client=bob`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify(answer),
  });
  assert.deepEqual(await r.json(), { ok: true, held: true });
  assert.deepEqual(await sender, { status: 202, body: "challenge" });
  const late = await fetch(`${api}/answers/${seq}?client=bob`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify(answer),
  });
  assert.deepEqual(await late.json(), { ok: true, held: false }, "an answer nobody waits for is said so");
  assert.doesNotMatch(hub.stderr(), /error:/, hub.stderr());
});

Deno.test("hub: without a token a client removal gets 401 whatever the name; with it, a name that is not one gets 404; every answer says nosniff", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const id = channel.url.split("/c/")[1]!;
  for (const name of ["%ff", "bob", "%3Cscript%3E"]) {
    for (const channelId of [id, "AAAAAAAAAAAAAAAAAAAAAA"]) {
      const r = await fetch(`${hub.url}/api/channels/${channelId}/clients/${name}`, { method: "DELETE" });
      assert.equal(r.status, 401, `${channelId}/${name}: ${r.status}`);
      assert.equal(r.headers.get("x-content-type-options"), "nosniff");
      await r.body?.cancel();
    }
  }
  const auth = { authorization: `Bearer ${channel.token}` };
  for (const name of ["%ff", "x".repeat(3000), "a%2Fb"]) {
    const r = await fetch(`${hub.url}/api/channels/${id}/clients/${name}`, {
      method: "DELETE",
      headers: auth,
    });
    const body = await r.text();
    assert.equal(r.status, 404, `${name.slice(0, 10)}: ${r.status} ${body}`);
    assert.ok(body.length < 200, "the name is not echoed whole");
  }
  for (
    const r of [
      await fetch(`${hub.url}/c/AAAAAAAAAAAAAAAAAAAAAA/<script>`, { method: "POST", body: "x" }),
      await fetch(`${channel.url}/x`, { method: "POST", body: "x" }),
      await fetch(`${hub.url}/api/channels/${id}?client=a`, { headers: auth }),
      await fetch(`${hub.url}/api/channels/${id}/events?after=0&wait=0&client=a`, { headers: auth }),
      await fetch(`${hub.url}/api/channels/${id}/ack?client=nobody`, {
        method: "POST",
        headers: auth,
        body: '{"seq":1}',
      }),
    ]
  ) {
    assert.equal(r.headers.get("x-content-type-options"), "nosniff", `${r.url}: ${r.status}`);
    await r.body?.cancel();
  }
  assert.doesNotMatch(hub.stderr(), /error:/, hub.stderr());
});

Deno.test("hub: a request dev could not take (a header name over 256 characters, a method over 32) is refused at the hub, never stored to stop every client's catch-up", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const id = channel.url.split("/c/")[1]!;
  const api = `${hub.url}/api/channels/${id}`;
  const auth = { authorization: `Bearer ${channel.token}` };
  const raw = async (request: string) => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: hub.port });
    try {
      await conn.write(new TextEncoder().encode(request));
      const buf = new Uint8Array(4096);
      const n = await conn.read(buf);
      return new TextDecoder().decode(buf.subarray(0, n ?? 0));
    } finally {
      conn.close();
    }
  };
  const longName = await raw(
    `POST /c/${id}/x HTTP/1.1\r\nHost: x\r\n${"N".repeat(300)}: v\r\nContent-Length: 1\r\n\r\nx`,
  );
  assert.match(longName, /^HTTP\/1\.1 400 /);
  assert.match(longName, /bad headers.*Nothing was stored/);
  const longMethod = await raw(
    `${"M".repeat(40)} /c/${id}/x HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx`,
  );
  assert.match(longMethod, /^HTTP\/1\.1 400 /);
  assert.match(longMethod, /a bad method/);
  const ok = await fetch(`${channel.url}/x`, {
    method: "POST",
    body: "after",
    headers: { ["N".repeat(256)]: "v" },
  });
  assert.equal(ok.status, 200, "a name of 256 characters is taken");
  await ok.body?.cancel();
  // The channel holds only what a client takes: its poll is one dev accepts.
  const poll = await (await fetch(`${api}/events?after=0&wait=0&client=a`, { headers: auth })).json();
  assert.equal(poll.events.length, 1);
  assert.equal(wirePollProblem(poll, 0), undefined);
});

Deno.test("hub: an answer whose path names no event number (answers/abc, /0, /-1, /1.5) gets 400 naming it, not 200", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const api = `${hub.url}/api/channels/${channel.url.split("/c/")[1]}`;
  const auth = { authorization: `Bearer ${channel.token}` };
  const hello = await fetch(`${api}?client=bob&hello=1`, { headers: auth });
  await hello.body?.cancel();
  const answer = JSON.stringify({ status: 200, headers: [], body: "" });
  for (const seq of ["abc", "0", "-1", "1.5", "99999999999999999999"]) {
    const r = await fetch(`${api}/answers/${seq}?client=bob`, {
      method: "POST",
      headers: auth,
      body: answer,
    });
    const body = await r.text();
    assert.equal(r.status, 400, `${seq}: ${r.status} ${body}`);
    assert.match(body, /event's sequence number/);
  }
  const ok = await fetch(`${api}/answers/1?client=bob`, { method: "POST", headers: auth, body: answer });
  assert.equal(ok.status, 200);
  assert.deepEqual(await ok.json(), { ok: true, held: false });
});
