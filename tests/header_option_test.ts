/**
 * `replay --header` and `trigger --header` refuse a value an HTTP field cannot hold (RFC 9110 §5.5: HTAB,
 * visible ASCII, space and obs-text only), as the inspector's replay API does: found by a re-audit, where
 * `-H $'x-a: \e]8;;http://evil\a'` went out (the app answered 400 to the malformed request) and was recorded,
 * and a character beyond Latin-1 went out as another byte (€ as 0xAC). Exit 2 naming the header and the
 * character, nothing sent, nothing recorded. The real CLI in a temp project, a real app on loopback.
 */
import assert from "node:assert/strict";
import { runCli, withTmpDir, writeFile } from "./_helpers.ts";
import { logText, makeEvents } from "./_store_fixture.ts";

Deno.test("replay and trigger --header refuse control characters and non-Latin-1 in a value; send tabs and obs-text", async () => {
  await using tmp = await withTmpDir();
  const [event] = makeEvents(1);
  await writeFile(tmp.path, ".hooktap/events.jsonl", logText([event!]));
  const got: Headers[] = [];
  await using app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    got.push(request.headers);
    return new Response("ok");
  });
  const to = `http://127.0.0.1:${app.addr.port}/hook`;
  const bad: [string, string][] = [
    ["\x1b]8;;http://evil\x07", "a control character (U+001B)"],
    ["a\x01b", "a control character (U+0001)"],
    ["a\x7f", "a control character (U+007F)"],
    ["5 \u20ac", "a character beyond Latin-1 (U+20AC)"],
  ];
  for (const [value, problem] of bad) {
    for (const args of [["replay", event!.id], ["trigger", "github", "push"]]) {
      const r = await runCli([...args, "--to", to, "--header", `x-a: ${value}`], { cwd: tmp.path });
      assert.equal(r.code, 2, `${args[0]}: ${r.stderr}`);
      assert.match(
        r.stderr,
        new RegExp(
          `error: -H x-a: the value has ${problem.replace(/[()+]/g, "\\$&")}; a header value is one`,
        ),
      );
      assert.ok(!r.stderr.includes("\x1b"), "the value is not echoed to the terminal");
    }
  }
  assert.equal(got.length, 0, "nothing was sent");
  await assert.rejects(Deno.stat(`${tmp.path}/.hooktap/deliveries.jsonl`), Deno.errors.NotFound);

  // A tab and obs-text (é, one byte 0xE9) are field-value characters: they go out as given.
  const ok = await runCli(["replay", event!.id, "--to", to, "--header", "x-a: a\tb caf\u00e9"], {
    cwd: tmp.path,
  });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(got[0]?.get("x-a"), "a\tb caf\u00e9");
});
