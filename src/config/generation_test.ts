import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError } from "../errors.ts";
import type { CapturedEvent } from "../event/record.ts";
import { openConfig } from "./generation.ts";
import { loadConfig } from "./load.ts";
import { type ResponseFunction, ResponseFunctionError } from "./response.ts";

async function inTmp(config: string, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, "hooktap.config.ts"), config);
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const withResponse = (response: string) =>
  `export default { port: 0, endpoints: [{ name: "a", path: "/a", method: "POST", response: ${response} }] };`;

const EVENT = { id: "evt_1", method: "POST" } as unknown as CapturedEvent;

const fnOf = (config: { endpoints: readonly { response?: unknown }[] }): ResponseFunction => {
  const response = config.endpoints[0]!.response;
  assert.equal(typeof response, "function");
  return response as ResponseFunction;
};

Deno.test("openConfig() runs a response function in the config's worker: its answer, a Response read, a throw", async () => {
  await inTmp(
    withResponse(
      `(e) => e.id === "evt_1" ? { status: 201, body: { got: e.method } } : e.id === "r" ? ` +
        `new Response("read", { status: 202, headers: { "x-a": "1" } }) : (() => { throw new Error("nope"); })()`,
    ),
    async (dir) => {
      await using generation = (await openConfig({ cwd: dir }))!;
      assert.ok(generation.running);
      const fn = fnOf(generation.config);
      assert.match(
        String(fn),
        /e\.id === "evt_1"/,
        "the proxy shows the function's text (reloads compare it)",
      );
      assert.deepEqual(await fn(EVENT), { status: 201, body: { got: "POST" } });
      assert.deepEqual(await fn({ ...EVENT, id: "r" }), {
        status: 202,
        headers: [["content-type", "text/plain;charset=UTF-8"], ["x-a", "1"]],
        body: "read",
      });
      await assert.rejects(async () => await fn({ ...EVENT, id: "x" }), (e: Error) => {
        assert.ok(!(e instanceof ResponseFunctionError));
        assert.equal(e.message, "nope");
        return true;
      });
    },
  );
});

Deno.test("retire() ends the worker once the call in flight answered; a later call says a reload replaced it", async () => {
  await inTmp(
    withResponse(`() => new Promise((r) => setTimeout(() => r({ status: 299 }), 150))`),
    async (dir) => {
      await using generation = (await openConfig({ cwd: dir }))!;
      const fn = fnOf(generation.config);
      const call = fn(EVENT);
      let retired = false;
      const retiring = generation.retire().then(() => (retired = true));
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(retired, false, "a call still runs");
      assert.deepEqual(await call, { status: 299 });
      await retiring;
      assert.equal(generation.running, false);
      await assert.rejects(async () => await fn(EVENT), (e: Error) => {
        assert.ok(e instanceof ResponseFunctionError);
        assert.match(e.message, /did not run: a reload replaced the config/);
        return true;
      });
    },
  );
});

Deno.test("loadConfig() reads a config with functions and ends its worker: the function says it runs only in dev", async () => {
  await inTmp(withResponse(`() => ({ status: 201 })`), async (dir) => {
    // The test's sanitizers fail on a worker left running.
    const config = await loadConfig({ cwd: dir });
    await assert.rejects(async () => await fnOf(config!)(EVENT), (e: Error) => {
      assert.ok(e instanceof ResponseFunctionError);
      assert.match(
        e.message,
        /did not run: a config read by loadConfig\(\) keeps no code running, so its response functions run only in hooktap dev/,
      );
      return true;
    });
  });
});

Deno.test("loading refuses a fixed Response and a value no thread can share, with no worker left running", async () => {
  await inTmp(withResponse(`new Response("x")`), async (dir) => {
    await assert.rejects(() => openConfig({ cwd: dir }), (e: Error) => {
      assert.ok(e instanceof ConfigError);
      assert.match(e.issues.join("\n"), /response is a Response object/);
      return true;
    });
  });
  await inTmp(`export default { port: 1, endpoints: [], extra: new WeakMap() };`, async (dir) => {
    await assert.rejects(() => openConfig({ cwd: dir }), /exports a value hooktap cannot read out of it/);
  });
  await inTmp(
    withResponse(`() => ({})`).replace("port: 0", "port: Symbol('p')"),
    async (dir) => {
      await assert.rejects(() => openConfig({ cwd: dir }), (e: Error) => {
        assert.ok(e instanceof ConfigError);
        assert.match(e.issues.join("\n"), /^port must be an integer/);
        return true;
      });
    },
  );
});
