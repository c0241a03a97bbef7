/**
 * Issue 20: clients that declare, withhold or flood against a real `hooktap
 * dev` (both stacks), bounded in count and time. Memory is read from
 * /proc/PID/status (VmRSS) of the dev subprocess; no timing is asserted.
 * @module
 */
import assert from "node:assert/strict";
import { LEAST_PRIVILEGE, startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { rssKiB } from "./_load.ts";
import { HttpConn } from "./_http.ts";

const STACKS = ["deno", "node"] as const;

/** A config whose receiver runs on `stack` (a GET endpoint makes dev pick node:http). */
function configFor(stack: "deno" | "node", extra = ""): string {
  const get = stack === "node" ? `, { name: "read", path: "/read", method: "GET" }` : "";
  return `export default {
  port: 8787,
  ui: false,
  ${extra}
  endpoints: [{ name: "default", path: "/webhook", method: "POST" }${get}],
};
`;
}

async function devOn(dir: string, stack: "deno" | "node", extra = "") {
  await writeFile(dir, "hooktap.config.ts", configFor(stack, extra));
  const dev = await startDev(dir, [], { permissions: LEAST_PRIVILEGE });
  assert.match(dev.stderr(), stack === "node" ? /Server: node:http/ : /Server: Deno\.serve/);
  return dev;
}

/** A normal request on a fresh connection; its status. */
async function post(port: number, body = '{"ok":1}'): Promise<number> {
  const conn = await HttpConn.open(port);
  try {
    return (await conn.request({ path: "/webhook", body, headers: [["content-type", "application/json"]] }))
      .status;
  } finally {
    conn.close();
  }
}

for (const stack of STACKS) {
  Deno.test(`200 connections declaring 25 MiB and sending one byte barely raise dev's memory (${stack} stack)`, async () => {
    await using tmp = await withTmpDir();
    await using dev = await devOn(tmp.path, stack);
    assert.equal(await post(dev.port), 200);
    const before = await rssKiB(dev.child.pid);
    const conns: Deno.TcpConn[] = [];
    try {
      const head = `POST /webhook HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n` +
        `content-length: 26214000\r\n\r\n{`;
      for (let i = 0; i < 200; i++) {
        const c = await Deno.connect({ hostname: "127.0.0.1", port: dev.port });
        await c.write(new TextEncoder().encode(head));
        conns.push(c);
      }
      // Give dev time to do whatever the declared lengths make it do; stop early past the bound.
      let peak = before;
      for (let i = 0; i < 30; i++) {
        await new Promise((r) => setTimeout(r, 100));
        peak = Math.max(peak, await rssKiB(dev.child.pid));
        if (peak - before > 150 * 1024) break;
      }
      const rise = (peak - before) / 1024;
      assert.ok(rise < 150, `dev's RSS rose by ${rise.toFixed(0)} MB (bound 150 MB; done-when 100 MB)`);
    } finally {
      for (const c of conns) c.close();
    }
    assert.equal(await post(dev.port), 200, "dev serves after the hoarders leave");
  });
}
