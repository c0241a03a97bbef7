import assert from "node:assert/strict";
import { join } from "node:path";
import { type ConfigGeneration, openConfig } from "../config/generation.ts";
import { holdGenerations } from "./config_generations.ts";

/** A generation of a config whose endpoint answers with a function: its worker runs until retired. */
async function generation(dir: string, n: number): Promise<ConfigGeneration> {
  const path = join(dir, `g${n}.config.ts`);
  await Deno.writeTextFile(
    path,
    `export default { port: 0, endpoints: [{ name: "a", path: "/a", method: "POST", response: () => ({ status: ${
      200 + n
    } }) }] };`,
  );
  const opened = await openConfig({ path });
  assert.ok(opened?.running);
  return opened;
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (const end = Date.now() + 5_000; !ok(); await new Promise((r) => setTimeout(r, 10))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
  }
}

Deno.test("an accepted reload retires the replaced generations once no request is in flight", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = await generation(dir, 1);
    await using held = holdGenerations(first);
    const second = await generation(dir, 2);
    held.adopt(second);
    assert.equal(held.current, second);
    assert.equal(held.running, 2);
    let busy = 1;
    held.accept(second, () => busy);
    await new Promise((r) => setTimeout(r, 250));
    assert.ok(first.running, "a request in flight may still call the replaced config's function");
    busy = 0;
    await until("the replaced worker ended", () => !first.running);
    assert.ok(second.running);
    assert.equal(held.running, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("under traffic that never pauses, a replaced generation still retires, after the longest request's life", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = await generation(dir, 1);
    await using held = holdGenerations(first, { retireAfterMs: 300 });
    const second = await generation(dir, 2);
    held.adopt(second);
    held.accept(second, () => 1); // always a request in flight
    await new Promise((r) => setTimeout(r, 150));
    assert.ok(first.running, "not before its time");
    await until("the replaced worker ended though the receiver is never idle", () => !first.running);
    assert.ok(second.running);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a refused or overtaken reload retires nothing; disposing ends every generation", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const [first, second, third] = [
      await generation(dir, 1),
      await generation(dir, 2),
      await generation(dir, 3),
    ];
    const held = holdGenerations(first);
    held.adopt(second); // refused: never accepted
    held.adopt(third);
    held.accept(second, () => 0); // a late acceptance of a generation no longer current
    await new Promise((r) => setTimeout(r, 250));
    assert.deepEqual([first.running, second.running, third.running], [true, true, true]);
    await held[Symbol.asyncDispose]();
    assert.deepEqual([first.running, second.running, third.running], [false, false, false]);
    const late = await generation(dir, 4);
    held.adopt(late); // a reload that finished loading after the stop
    assert.equal(late.running, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
