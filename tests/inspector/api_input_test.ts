/**
 * The inspector's API refuses input it would not honour, with a 400 naming it ("every option honoured or
 * refused"), found by an audit against `hooktap ui`: a replay body `!!!` as base64 went out empty, a
 * misspelled `resgn` went out unsigned, a bad header name was a 502 recorded as a failed delivery; list and
 * stream filters with the CLI's names (`grep`, `undelivered`, `has_header`) listed every event, an unknown
 * endpoint listed none, `limit=0` listed one. A re-audit: a header value with control characters (an OSC 8
 * escape) was sent and recorded, base64 was lenient ("YWJ" sent "ab"), `limit=1&limit=2` took the first,
 * `/api/info?x=1` was answered, a body `[]` was told "to must be a URL string". The real CLI (`hooktap ui`) in
 * a temp project, over loopback.
 */
import assert from "node:assert/strict";
import { cliArgs, LEAST_PRIVILEGE, withTmpDir, writeFile } from "../_helpers.ts";
import { eventLine } from "../../src/event/record.ts";
import { deliveryLines, fixtureEvents, targetServer } from "./_fixture.ts";
import { spawnUntil } from "../../bench/proc.ts";

const CONFIG = `export default { port: 19387, endpoints: [
  { name: "github", path: "/hooks/github", method: "POST" },
  { name: "stripe", path: "/hooks/stripe", method: "POST" },
] };\n`;

/** `hooktap ui --port 0` over `events` in a temp project: its URL, and `api(path, init)` with the token. */
async function startUi(dir: string) {
  const { child, match } = await spawnUntil(
    cliArgs(LEAST_PRIVILEGE, ["ui", "--port", "0"]),
    dir,
    / on (http:\/\/127\.0\.0\.1:\d+\/)\?token=([0-9a-f]{64})\s/,
  );
  const [, url, token] = match;
  return {
    api: (path: string, init: RequestInit = {}) =>
      fetch(`${url}${path}`, {
        ...init,
        headers: { "x-hooktap-token": token!, "content-type": "application/json", ...init.headers },
      }),
    async [Symbol.asyncDispose]() {
      child.kill("SIGINT");
      await child.status;
    },
  };
}

async function errorOf(response: Response, status = 400): Promise<string> {
  const body = await response.json();
  assert.equal(response.status, status, JSON.stringify(body));
  return body.error;
}

Deno.test("replay API: bad base64, an unknown key, a bad header are a 400 naming them; nothing sent or recorded", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  const events = fixtureEvents(6);
  await writeFile(tmp.path, ".hooktap/events.jsonl", events.map(eventLine).join(""));
  const deliveries = deliveryLines(events);
  await writeFile(tmp.path, ".hooktap/deliveries.jsonl", deliveries);
  await using ui = await startUi(tmp.path);
  await using target = targetServer();
  const replay = (body: unknown) =>
    ui.api(`api/events/${events[0]!.id}/replay`, { method: "POST", body: JSON.stringify(body) });

  // Strict base64, as the message says: padded, no bit dropped ("YWJ" would send "ab", "YQ" "a", "YR==" "a"
  // dropping a set bit), no spaces ("Y W\nJ j" sent "abc").
  for (const body of ["!!!", "a", "aGk==", "YWJ", "YQ", "YR==", "Y W\nJ j", "aG\tk="]) {
    const base64 = await errorOf(await replay({ to: target.url, body, bodyEncoding: "base64" }));
    assert.match(base64, /^body is not base64 \(bodyEncoding is "base64"\)/);
    assert.match(base64, /padded with = to a multiple of 4 characters; line breaks allowed, no spaces/);
  }
  const typo = await errorOf(await replay({ to: target.url, resgn: true }));
  assert.match(
    typo,
    /^unknown key "resgn": did you mean "resign"\? A replay request takes /,
    "no stray period",
  );
  assert.match(typo, /takes to, method, headers, body, bodyEncoding, resign, resignInvalid/);
  const name = await errorOf(await replay({ to: target.url, headers: [["bad name", "x"]] }));
  assert.match(name, /headers: "bad name" is not a header name/);
  for (const value of ["a\r\nx-injected: 1", "a\nb", "a\rb"]) {
    const crlf = await errorOf(await replay({ to: target.url, headers: [["x-ok", value]] }));
    assert.match(crlf, /headers: the value of x-ok has a line break/);
  }
  // An HTTP field value holds HTAB, visible ASCII, space and obs-text only: any other control character
  // (an OSC 8 link, BEL, NUL, DEL, a vertical tab) is refused, naming the header and the character.
  const controls: [string, string][] = [
    ["\u001b]8;;http://evil\u0007", "U+001B"],
    ["a\u0007", "U+0007"],
    ["a\u0000b", "U+0000"],
    ["a\u007f", "U+007F"],
    ["a\u000bb", "U+000B"],
    ["a\u0001", "U+0001"],
  ];
  for (const [value, code] of controls) {
    const control = await errorOf(await replay({ to: target.url, headers: [["x-a", value]] }));
    assert.equal(
      control,
      `headers: the value of x-a has a control character (${code}); a header value is one line of Latin-1 ` +
        "text: visible characters, spaces and tabs",
    );
  }
  const wide = await errorOf(await replay({ to: target.url, headers: [["x-a", "5 \u20ac"]] }));
  assert.match(wide, /headers: the value of x-a has a character beyond Latin-1 \(U\+20AC\)/);
  // The message alone, no class name.
  assert.equal(await errorOf(await replay({})), "to must be a URL string");
  for (const body of [[], [{ to: target.url }], "x", 5, null]) {
    assert.equal(
      await errorOf(await replay(body)),
      'the request body must be a JSON object like {"to":"http://localhost:3000/webhook"}',
    );
  }
  assert.equal(target.received.length, 0, "nothing was sent");
  assert.equal(
    await Deno.readTextFile(`${tmp.path}/.hooktap/deliveries.jsonl`),
    deliveries,
    "nothing was recorded",
  );

  // Good input still goes: base64 (wrapped, as `base64` writes it), and the keys the API takes.
  const ok = await replay({ to: target.url, body: "aG\nk=", bodyEncoding: "base64", method: "PUT" });
  assert.equal(ok.status, 200, await ok.clone().text());
  await ok.body?.cancel();
  assert.equal(new TextDecoder().decode(target.received[0]!.body), "hi");
  // A tab, and obs-text (0x80-0xFF, sent as one byte each), are field-value characters: they go out.
  const fine = await replay({
    to: target.url,
    headers: [["x-a", "a\tb caf\u00e9"]],
    body: "YQ==",
    bodyEncoding: "base64",
  });
  assert.equal(fine.status, 200, await fine.clone().text());
  await fine.body?.cancel();
  assert.equal(target.received[1]!.headers.get("x-a"), "a\tb caf\u00e9");
  assert.deepEqual([...target.received[1]!.body], [0x61]);
});

Deno.test("list and stream API: unknown parameters, an unknown endpoint and a bad limit are a 400", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  const events = fixtureEvents(6);
  await writeFile(tmp.path, ".hooktap/events.jsonl", events.map(eventLine).join(""));
  await using ui = await startUi(tmp.path);

  for (const route of ["api/events", "api/stream"]) {
    const cli = await errorOf(await ui.api(`${route}?grep=zzzz&undelivered=1&has_header=nope`));
    assert.match(cli, /Unknown parameters "grep" \(the API's is q\), "undelivered" \(the API's is delivery=/);
    assert.match(cli, /"has_header" \(the API's is header\)/);
    assert.match(
      cli,
      /Known parameters: endpoint, method, provider, type, verdict, delivery, since, until, q/,
    );
    const nosuch = await errorOf(await ui.api(`${route}?endpoint=githb`));
    assert.match(
      nosuch,
      /There is no endpoint named "githb": did you mean "github"\? Known endpoints: github, stripe/,
    );
  }
  assert.match(await errorOf(await ui.api("api/stream?limit=5")), /Unknown parameter "limit"/);
  // A parameter that takes one value, given twice, is refused rather than read as its first value.
  for (const query of ["limit=1&limit=2", "endpoint=github&endpoint=stripe", "q=a&q=b"]) {
    const name = query.split("=")[0];
    assert.equal(
      await errorOf(await ui.api(`api/events?${query}`)),
      `"${name}" is given more than once; it takes one value (only where and header repeat, all of them holding).`,
    );
  }
  assert.match(await errorOf(await ui.api("api/stream?type=a&type=b")), /^"type" is given more than once/);
  // Routes that take no parameters refuse one, as the list does.
  for (
    const route of ["api/info?x=1", `api/events/${events[0]!.id}?x=1`, `api/events/${events[0]!.id}/raw?x=1`]
  ) {
    assert.equal(
      await errorOf(await ui.api(route)),
      'Unknown parameter "x". This route takes no parameters.',
    );
  }
  const info = await ui.api("api/info");
  assert.equal(info.status, 200);
  await info.body?.cancel();
  for (const limit of ["0", "-1", "1001", "ten", "1.5"]) {
    const bad = await errorOf(await ui.api(`api/events?limit=${limit}`));
    assert.equal(bad, `limit must be a whole number from 1 to 1000 (events per page); got "${limit}".`);
  }

  // What the page sends still works: every filter field, the cursor and the page size.
  const page = await ui.api(
    "api/events?q=n&endpoint=github&method=POST&provider=github&type=push&verdict=valid&delivery=none" +
      `&where=action%3Dopened&header=user-agent%3DGitHub-Hookshot%2Fabc&since=1d&until=${
        encodeURIComponent(new Date().toISOString())
      }&before=999999&limit=100`,
  );
  assert.equal(page.status, 200, await page.clone().text());
  await page.body?.cancel();
  const one = await (await ui.api("api/events?limit=1")).json();
  assert.deepEqual(one.events.map((e: { id: string }) => e.id), [events.at(-1)!.id]);
  // An endpoint with no events yet, but in the config: an empty list, not an error.
  const empty = await ui.api("api/events?endpoint=stripe&provider=nosuch");
  assert.equal(empty.status, 200);
  assert.deepEqual((await empty.json()).events, []);
});
