/**
 * A body over the limit, against the real `hooktap dev` and `hooktap hub serve`, with curl and fetch: the 413
 * arrives complete (curl exits 0, fetch reads its text) when its rest is cheap to drain or its sender waits
 * for a go-ahead (src/receiver/over_limit.ts). The rests that are given up, and their closed connections, are
 * tests/fault/memory_test.ts's.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { createChannel, startHub } from "./_hub.ts";

const LIMIT = 4096;

/** POSTs the file `body` with curl; its exit code, status and text. */
async function curl(url: string, body: string, headers: string[]) {
  const out = await new Deno.Command("curl", {
    args: [
      "-sS",
      "-o",
      "-",
      "-w",
      "\n%{http_code}",
      ...headers.flatMap((h) => ["-H", h]),
      "--data-binary",
      `@${body}`,
      url,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const at = text.lastIndexOf("\n");
  return {
    code: out.code,
    stderr: new TextDecoder().decode(out.stderr),
    status: Number(text.slice(at + 1)),
    text: text.slice(0, at),
  };
}

Deno.test("a body over the limit gets a complete 413 from dev and the hub (curl exits 0, fetch reads it)", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, maxBodySize: ${LIMIT}, ` +
      `endpoints: [{ name: "w", path: "/webhook", method: "POST" }] };\n`,
  );
  const small = new Uint8Array(LIMIT + 1000).fill(0x61); // within twice the limit: drained
  const large = new Uint8Array(4 * 1024 * 1024).fill(0x62); // past it: left to a sender that asks first
  await Deno.writeFile(join(tmp.path, "small"), small);
  await Deno.writeFile(join(tmp.path, "large"), large);
  await using dev = await startDev(tmp.path);
  await using hub = await startHub(tmp.path, 0, ["--max-body-size", "4KiB"]);
  const channel = await createChannel(tmp.path, hub.url);
  const targets = [
    {
      who: "dev",
      url: `${dev.url}/webhook`,
      text: /^Request body too large: this endpoint accepts at most 4 KiB\. /,
    },
    {
      who: "hub",
      url: `${channel.url}/gh`,
      text: /^Request body too large: this hub accepts at most 4 KiB\. /,
    },
  ];
  for (const { who, url, text } of targets) {
    // The whole body sent at once (no `Expect`): its rest is read and dropped, the answer is whole.
    const sent = await curl(url, join(tmp.path, "small"), ["Expect:"]);
    assert.equal(sent.code, 0, `${who}: curl ${sent.code} ${sent.stderr}`);
    assert.equal(sent.status, 413);
    assert.match(sent.text, text);
    assert.match(sent.text, /Nothing was stored\.$/);
    const fetched = await fetch(url, { method: "POST", body: small });
    assert.equal(fetched.status, 413);
    assert.match(await fetched.text(), /Nothing was stored\.$/, who); // threw "error reading a body" before
    // A sender that waits for a go-ahead gets the whole 413 instead, and sends no more.
    const asked = await curl(url, join(tmp.path, "large"), ["Expect: 100-continue"]);
    assert.equal(asked.code, 0, `${who}: curl ${asked.code} ${asked.stderr}`);
    assert.equal(asked.status, 413);
    assert.match(asked.text, text);
  }
  // Nothing of it stored; dev still serves.
  const ok = await fetch(`${dev.url}/webhook`, { method: "POST", body: "{}" });
  await ok.arrayBuffer();
  assert.equal(ok.status, 200);
});
