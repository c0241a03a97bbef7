/**
 * Issue 36.5 through the real CLI: a burst of events for a forward target
 * where nothing listens costs `dev` a bounded memory (each target keeps a
 * small window in memory and reads the rest back from `events.jsonl`; the
 * receive path frees what each request read), and once the app listens every
 * event reaches it exactly once, in the order hooktap received them. `dev`
 * runs with the flags of `deno task dev`. The bound is generous (a loaded CI
 * machine); bench/forward_backlog.ts measures the figure against its target.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { freePort, until } from "../_app.ts";
import { devTaskFlags, startDev, withTmpDir, writeForwardingConfig } from "../_helpers.ts";
import { rssKiB } from "./_load.ts";

const MB = 1024 * 1024;
const EVENTS = 3_000;
const BODY_BYTES = 32 * 1024;
/** ~94 MB of bodies wait; the queue that held them all in memory grew dev by more than that. */
const BOUND_MB = 80;

/** Resident memory of `pid`, in bytes. */
const rss = async (pid: number): Promise<number> => (await rssKiB(pid)) * 1024;

Deno.test({
  name:
    "3,000 events of 32 KB for an app that is down: dev's memory stays bounded, then each arrives once, in order",
  ignore: Deno.build.os !== "linux", // RSS from /proc
  async fn() {
    await using tmp = await withTmpDir();
    const appPort = freePort();
    await writeForwardingConfig(tmp.path, appPort);
    await using dev = await startDev(tmp.path, ["--quiet"], { permissions: devTaskFlags() });
    const before = await rss(dev.child.pid);
    const body = JSON.stringify({ pad: "x".repeat(BODY_BYTES - 10) });
    // 16 senders at once, as a busy provider sends: arrival order is the store's, not the counter's.
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < EVENTS) {
        const n = next++;
        const r = await fetch(`${dev.url}/gh`, { method: "POST", headers: { "x-n": String(n) }, body });
        await r.body?.cancel();
        assert.equal(r.status, 200, `event ${n}`);
      }
    }));
    const grew = ((await rss(dev.child.pid)) - before) / MB;
    assert.ok(grew < BOUND_MB, `dev's RSS grew ${grew.toFixed(0)} MB with ${EVENTS} events waiting`);

    const got: number[] = [];
    await using _app = Deno.serve({ hostname: "127.0.0.1", port: appPort, onListen() {} }, async (req) => {
      got.push(Number(req.headers.get("x-n")));
      await req.body?.cancel();
      return new Response(null, { status: 204 });
    });
    await until(() => got.length >= EVENTS, `${EVENTS} deliveries`, 120_000);
    await new Promise((r) => setTimeout(r, 500)); // a duplicate would come now
    const stored = (await Deno.readTextFile(join(tmp.path, ".hooktap", "events.jsonl"))).split("\n")
      .filter((l) => l !== "")
      .map((l) => Number((JSON.parse(l).headers as [string, string][]).find(([k]) => k === "x-n")![1]));
    assert.equal(stored.length, EVENTS);
    assert.equal(new Set(got).size, got.length, "no event delivered twice");
    assert.deepEqual(got, stored, "every event once, in the order hooktap received them");
    assert.equal(await dev.stop(), 0);
  },
});
