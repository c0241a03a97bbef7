import assert from "node:assert/strict";
import { connectTcp } from "./http1.ts";

/** An app bound to `::1` only, or `undefined` where this machine has no IPv6 loopback. */
function listenV6(): Deno.TcpListener | undefined {
  try {
    return Deno.listen({ hostname: "::1", port: 0 });
  } catch {
    return undefined;
  }
}

Deno.test("connectTcp: an app bound to ::1 only is reached by the name localhost, as one bound to 127.0.0.1", async (t) => {
  const v6 = listenV6();
  if (v6 === undefined) {
    t.step({ name: "no IPv6 loopback here", ignore: true, fn: () => {} });
    return;
  }
  const v4 = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    for (const listener of [v6, v4]) {
      const port = (listener.addr as Deno.NetAddr).port;
      const accepted = listener.accept();
      const conn = await connectTcp("localhost", port);
      (await accepted).close();
      conn.close();
    }
  } finally {
    v6.close();
    v4.close();
  }
});

Deno.test("connectTcp: a refused localhost is tried at each loopback address, then the first refusal is thrown; other names are not", async () => {
  const tried: string[] = [];
  const refuse = (options: Deno.ConnectOptions) => {
    tried.push(options.hostname ?? "");
    return Promise.reject(new Deno.errors.ConnectionRefused(`refused at ${options.hostname}`));
  };
  await assert.rejects(connectTcp("localhost", 1, refuse), /refused at localhost/);
  assert.deepEqual(tried, ["localhost", "127.0.0.1", "::1"]);
  tried.length = 0;
  await assert.rejects(connectTcp("app.internal", 1, refuse), /refused at app\.internal/);
  assert.deepEqual(tried, ["app.internal"]);
  tried.length = 0;
  const timedOut = (options: Deno.ConnectOptions) => {
    tried.push(options.hostname ?? "");
    return Promise.reject(new Deno.errors.TimedOut("timed out"));
  };
  await assert.rejects(connectTcp("localhost", 1, timedOut), /timed out/);
  assert.deepEqual(tried, ["localhost"], "only a refusal is tried elsewhere");
});
