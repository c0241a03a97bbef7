/**
 * Issue 33's done-when: an app that is down for 100 seconds (longer than the
 * old policy's ~70 s of retries) while events keep coming gets every one of
 * them once, in the order hooktap received them, as soon as it listens
 * again; nothing is given up meanwhile. Takes about two minutes.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startApp, until, unusedPort } from "./_app.ts";
import { startDev, withTmpDir, writeForwardingConfig } from "./_helpers.ts";

const OUTAGE_MS = 100_000;

Deno.test("a 100-second app outage: every waiting event once, in order, when the app listens again", async () => {
  await using tmp = await withTmpDir();
  // Down for 100 s: a port no other test's `port: 0` listener can be given meanwhile.
  const appPort = unusedPort();
  await writeForwardingConfig(tmp.path, appPort);
  await using dev = await startDev(tmp.path);
  const down = Date.now();
  let n = 0;
  // A burst at the start (more than a target keeps in memory), then one event every two seconds.
  for (; n < 100; n++) {
    const r = await fetch(`${dev.url}/gh`, { method: "POST", body: JSON.stringify({ n }) });
    await r.body?.cancel();
  }
  while (Date.now() - down < OUTAGE_MS) {
    const r = await fetch(`${dev.url}/gh`, { method: "POST", body: JSON.stringify({ n: n++ }) });
    assert.equal(r.status, 200);
    await r.body?.cancel();
    await new Promise((res) => setTimeout(res, 2000));
  }
  assert.doesNotMatch(
    dev.stdout(),
    /gave up/,
    `nothing is given up while the app is down; dev's stdout:\n${
      dev.stdout().split("\n").slice(-20).join("\n")
    }`,
  );
  await using app = startApp(appPort, () => ({ status: 200 }));
  // "Within seconds": the bound is generous for a busy machine; the bench is where speed is measured.
  try {
    await until(() => app.requests.length >= n, `${n} deliveries`, 120_000);
  } catch (error) {
    // What dev said about the target, for the reader of a failure (the machine may be loaded by other tests).
    const tail = (text: string) => text.split("\n").slice(-25).join("\n");
    throw new Error(
      `${(error as Error).message}: the app got ${app.requests.length}.\n` +
        `dev's stderr:\n${tail(dev.stderr())}\ndev's stdout:\n${tail(dev.stdout())}`,
    );
  }
  await new Promise((res) => setTimeout(res, 1000));
  const got = app.requests.map((r) => (JSON.parse(new TextDecoder().decode(r.body)) as { n: number }).n);
  assert.deepEqual(got, [...Array(n).keys()], "every event once, in the order received");
  assert.match(
    dev.stderr(),
    new RegExp(`127\\.0\\.0\\.1:${appPort} answers again; the ${n} events that waited go out now`),
  );
  const records = (await Deno.readTextFile(join(tmp.path, ".hooktap", "deliveries.jsonl"))).trim().split("\n")
    .map((l) => JSON.parse(l));
  assert.equal(records.filter((d) => d.outcome === "delivered").length, n);
  assert.ok(
    records.length <= n + 8,
    `no attempt spent while down: ${records.length} records for ${n} events`,
  );
  assert.equal(await dev.stop(), 0);
});
