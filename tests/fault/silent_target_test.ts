/**
 * Issue 38.4 (and 36.5): a forward target that reads requests and never
 * answers, 44,000 events waiting for it, and a restart. Each waiting event
 * used to hold its body in memory: dev ran out of memory, and every restart
 * with forwarding died again during start-up. Now a target keeps a small
 * window in memory and reads the rest back from the store. Memory is read
 * from /proc/PID/status (VmRSS); the bound is generous; no timing is asserted.
 * @module
 */
import assert from "node:assert/strict";
import { startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { HttpConn } from "./_http.ts";
import { rssKiB } from "./_load.ts";

const EVENTS = 44_000;
const CONNECTIONS = 16;
const BODY = JSON.stringify({ pad: "x".repeat(2000) }); // ~2 KB: 44,000 of them held would be ~90 MB of bodies
const BOUND_MB = 150;

/** A target that accepts, reads every byte and never answers. */
function silentTarget() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  let requests = 0;
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        conns.add(conn);
        (async () => {
          const buf = new Uint8Array(64 * 1024);
          try {
            while (true) {
              const n = await conn.read(buf);
              if (n === null) break;
              if (new TextDecoder().decode(buf.subarray(0, Math.min(n, 8))).startsWith("POST")) requests++;
            }
          } catch { /* closed */ }
          conns.delete(conn);
        })();
      }
    } catch { /* closed */ }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    get requests() {
      return requests;
    },
    async close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await accepting;
    },
  };
}

/** Sends `n` events over a few keep-alive connections (bounded: loopback, one request in flight per connection). */
async function load(port: number, n: number): Promise<number> {
  let next = 0;
  let ok = 0;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    const conn = await HttpConn.open(port);
    try {
      while (next < n) {
        next++;
        const r = await conn.request({
          path: "/hook",
          body: BODY,
          headers: [["content-type", "application/json"]],
        });
        if (r.status === 200) ok++;
      }
    } finally {
      conn.close();
    }
  }));
  return ok;
}

Deno.test({
  name: "a silent target with 44,000 events waiting, and a restart: dev stays up with bounded memory",
  sanitizeResources: false,
  async fn() {
    await using tmp = await withTmpDir();
    const target = silentTarget();
    try {
      await writeFile(
        tmp.path,
        "hooktap.config.ts",
        `export default { port: 0, ui: false, endpoints: [{ name: "hook", path: "/hook", method: "POST", ` +
          `forward: "http://127.0.0.1:${target.port}/in" }] };\n`,
      );
      let fresh: number;
      {
        await using dev = await startDev(tmp.path, ["--quiet"]);
        const before = fresh = await rssKiB(dev.child.pid);
        let peak = before;
        let sampling = true;
        const sampler = (async () => {
          while (sampling) {
            peak = Math.max(peak, await rssKiB(dev.child.pid).catch(() => peak));
            await new Promise((r) => setTimeout(r, 200));
          }
        })();
        const acknowledged = await load(dev.port, EVENTS);
        sampling = false;
        await sampler;
        assert.equal(acknowledged, EVENTS);
        const rise = (peak - before) / 1024;
        // deno-lint-ignore no-console
        console.log(`receiving ${EVENTS} events for a silent target: RSS rose ${rise.toFixed(0)} MB`);
        assert.ok(rise < BOUND_MB, `dev's RSS rose ${rise.toFixed(0)} MB (bound ${BOUND_MB} MB)`);
        assert.ok(target.requests <= 8, `the target holds the lane: ${target.requests} requests in flight`);
        assert.equal(await dev.stop("SIGINT"), 0);
      }
      // The restart: every event still waits; dev starts, stays up and its memory stays bounded.
      // Measured from a fresh dev's RSS: start-up (which scans the store for waiting events) counts too.
      await using dev = await startDev(tmp.path, ["--quiet"]);
      let peak = await rssKiB(dev.child.pid);
      for (let i = 0; i < 75; i++) {
        await new Promise((r) => setTimeout(r, 200));
        peak = Math.max(peak, await rssKiB(dev.child.pid));
      }
      assert.match(
        dev.stderr(),
        /44000 deliveries of events stored but not delivered when hooktap last stopped/,
      );
      const rise = (peak - fresh) / 1024;
      // deno-lint-ignore no-console
      console.log(`restart with ${EVENTS} events waiting: RSS rose ${rise.toFixed(0)} MB in 15 s`);
      assert.ok(
        rise < BOUND_MB,
        `dev's RSS rose ${rise.toFixed(0)} MB after the restart (bound ${BOUND_MB} MB)`,
      );
      const alive = await fetch(`${dev.url}/hook`, { method: "POST", body: "{}" });
      assert.equal(alive.status, 200, "dev still takes events");
      await alive.body?.cancel();
      assert.equal(await dev.stop("SIGINT"), 0);
    } finally {
      await target.close();
    }
  },
});
