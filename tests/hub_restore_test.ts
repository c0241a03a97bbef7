/**
 * A hub restored from a backup of its KV file (docs/hub.md, "Deploy on a VPS"): its sequence numbers go back
 * and are given again to new events. `hooktap dev --hub` must take those as new, never as events it already
 * has. The real CLI (hub serve, dev) as subprocesses in a temp directory, senders on loopback.
 */
import assert from "node:assert/strict";
import { startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { until } from "./_app.ts";
import { createChannel, send, startHub } from "./_hub.ts";

const CONFIG = `export default {
  port: 8787,
  ui: false,
  endpoints: [{ name: "gh", path: "/gh", method: "POST" }],
};
`;

const KV_FILES = ["hub.sqlite", "hub.sqlite-wal", "hub.sqlite-shm"];

async function copyKv(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for (const name of KV_FILES) {
    await Deno.remove(`${to}/${name}`).catch(() => {});
    try {
      await Deno.copyFile(`${from}/${name}`, `${to}/${name}`);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
}

/** The bodies in `.hooktap/events.jsonl`, in file order. */
async function bodies(dir: string): Promise<string[]> {
  const text = await Deno.readTextFile(`${dir}/.hooktap/events.jsonl`).catch(() => "");
  return text.split("\n").filter((l) => l.endsWith("}")).map((l) => {
    const e = JSON.parse(l);
    return e.bodyEncoding === "utf8" ? e.body : new TextDecoder().decode(Uint8Array.fromBase64(e.body));
  });
}

for (const when of ["before", "around", "after"] as const) {
  Deno.test(`hub: after the hub is restored from a backup (its sequence numbers go back), dev takes the new events it numbers again, says what happened, loses none (sent ${when} dev reconnects)`, async () => {
    await using tmp = await withTmpDir();
    const work = `${tmp.path}/project`;
    const hubDir = `${tmp.path}/hub`;
    await Deno.mkdir(hubDir, { mode: 0o700 });
    await writeFile(work, "hooktap.config.ts", CONFIG);
    const first = await startHub(hubDir);
    const channel = await createChannel(hubDir, first.url);
    await using dev = await startDev(work, ["--hub", channel.url], {
      env: { HOOKTAP_HUB_TOKEN: channel.token },
      permissions: ["-A"],
    });
    await until(() => dev.stderr().includes("connected"), "dev to connect");
    for (const n of [1, 2]) assert.equal(await send(`${channel.url}/gh`, `{"n":${n}}`), 200);
    await until(async () => (await bodies(work)).length === 2, "events 1 and 2");
    // The backup, taken with the hub stopped (as docs/hub.md says).
    await first.stop();
    await copyKv(hubDir, `${tmp.path}/backup`);
    await using second = await startHub(hubDir, first.port);
    await until(() => /connected again/.test(dev.stderr()), "dev to reconnect");
    for (const n of [3, 4, 5]) assert.equal(await send(`${channel.url}/gh`, `{"n":${n}}`), 200);
    await until(async () => (await bodies(work)).length === 5, "events 3 to 5");
    assert.doesNotMatch(dev.stderr(), /went back/, "a hub restarted as it was is no restore");
    // Restored: the hub's last event is 2 again; the next ones are numbered 3, 4, 5, 6.
    await second.stop();
    await copyKv(`${tmp.path}/backup`, hubDir);
    await using third = await startHub(hubDir, first.port);
    const reconnected = () =>
      until(() => dev.stderr().split("connected again").length === 3, "dev to reconnect again", 30_000);
    // "around": the hub's events end at 4 when dev reconnects, before its 5.
    const early = when === "before" ? [6, 7, 8, 9] : when === "around" ? [6, 7] : [];
    for (const n of early) assert.equal(await send(`${channel.url}/gh`, `{"n":${n}}`), 200);
    await reconnected();
    for (const n of [6, 7, 8, 9].filter((n) => !early.includes(n))) {
      assert.equal(await send(`${channel.url}/gh`, `{"n":${n}}`), 200);
    }
    // dev's next try may be up to 10 s away (its backoff).
    await until(async () => (await bodies(work)).length === 9, "events 6 to 9", 30_000).catch(async (e) => {
      throw new Error(`${e.message}: ${JSON.stringify(await bodies(work))}\n${dev.stderr()}`);
    });
    assert.deepEqual(await bodies(work), [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `{"n":${n}}`));
    assert.match(
      dev.stderr(),
      /Hub: the hub's event numbers went back \(this client has up to 5; the hub (ends at [24]|holds another event 5)\): .*restored from a backup/,
    );
    assert.equal(await dev.stop("SIGINT"), 0);
    await third.stop();
  });
}
