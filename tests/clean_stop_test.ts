/**
 * Whether a resumed delivery says "again after a restart: your app may have
 * seen it", through the real CLI: not after a graceful stop whose every try
 * found nothing listening (the app never saw the event); still after a stop
 * that abandoned an attempt in flight past the grace, and after a kill whose
 * waiting events a later graceful run did not get through.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { freePort, startApp, until } from "./_app.ts";
import { deliveries, startDev, withTmpDir, writeFile } from "./_helpers.ts";

function config(appPort: number): string {
  return `export default { port: 0, endpoints: [{ name: "gh", path: "/hook", method: "POST", ` +
    `forward: { to: "http://127.0.0.1:${appPort}/in" } }] };\n`;
}

async function forwardState(dir: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(join(dir, ".hooktap", "forward_state.json")));
}

async function post(url: string, body: unknown): Promise<string> {
  const r = await fetch(`${url}/hook`, { method: "POST", body: JSON.stringify(body) });
  assert.equal(r.status, 200);
  return (await r.json()).id;
}

const RESUME_LINE = /1 delivery of an event stored but not delivered when hooktap last stopped goes out now/;

Deno.test("a graceful stop while nothing listened: the restart delivers attempt 1, not 'again after a restart'", async () => {
  await using tmp = await withTmpDir();
  const appPort = freePort();
  await writeFile(tmp.path, "hooktap.config.ts", config(appPort));
  let id: string;
  {
    const dev = await startDev(tmp.path);
    id = await post(dev.url, { n: 1 });
    await until(() => dev.stderr().includes(`nothing listens on 127.0.0.1:${appPort}`), "the app-down line");
    await new Promise((r) => setTimeout(r, 2500)); // the connect check runs: tries, none an attempt
    assert.equal(await dev.stop("SIGINT"), 0);
    const tries = await deliveries(tmp.path);
    assert.ok(
      tries.length >= 1 && tries.every((d) => d.event === id && d.refused === true),
      "refused tries only",
    );
  }
  // The file says the run stopped cleanly; no event settled, so no watermark (older hooktap reads none).
  const { starts, ...rest } = await forwardState(tmp.path);
  assert.deepEqual(rest, { v: 1, run: "clean" });
  assert.equal(typeof starts, "string", "names the run's forward_starts.jsonl");
  await using app = startApp(appPort, () => ({ status: 200 }));
  await using dev = await startDev(tmp.path, ["--no-ui"]);
  await until(() => RESUME_LINE.test(dev.stderr()), "the resume banner");
  await until(() => /\[200\]/.test(dev.stdout()), "the delivery line");
  const delivered = (await deliveries(tmp.path)).filter((d) => d.outcome === "delivered");
  assert.deepEqual(delivered.map((d) => [d.event, d.attempt, d.resumed]), [[id, 1, undefined]]);
  assert.doesNotMatch(dev.stdout(), /may have seen it|again after a restart/);
  assert.equal(app.requests.length, 1);
  assert.equal(await dev.stop(), 0);
  const state = await forwardState(tmp.path);
  assert.equal(state.run, "clean");
  assert.equal(state.settledThrough, id);
});

Deno.test("a graceful stop that abandons an attempt past the grace: the restart says 'again after a restart'", async () => {
  await using tmp = await withTmpDir();
  let hold = true;
  const HOLD_MS = 6000; // longer than dev's 3 s grace for in-flight deliveries
  await using app = startApp(0, () => (hold ? { status: 200, delayMs: HOLD_MS } : { status: 200 }));
  await writeFile(tmp.path, "hooktap.config.ts", config(app.port));
  let id: string;
  let heldAt: number;
  {
    const dev = await startDev(tmp.path);
    id = await post(dev.url, { n: 1 });
    await until(() => app.requests.length === 1, "the attempt in flight");
    heldAt = Date.now();
    assert.equal(await dev.stop("SIGINT"), 0);
    assert.deepEqual(await deliveries(tmp.path), [], "the abandoned attempt is not recorded");
  }
  assert.equal((await forwardState(tmp.path)).run, "running", "not clean: an attempt was abandoned");
  hold = false;
  await using dev = await startDev(tmp.path);
  await until(() => RESUME_LINE.test(dev.stderr()), "the resume banner");
  await until(() => /\[200\]/.test(dev.stdout()), "the delivery line");
  assert.match(dev.stdout(), /\(again after a restart: your app may have seen it\)/);
  const records = await deliveries(tmp.path);
  assert.deepEqual(records.map((d) => [d.event, d.attempt, d.resumed, d.outcome]), [[
    id,
    1,
    true,
    "delivered",
  ]]);
  assert.equal(app.requests.length, 2, "the app saw it twice");
  assert.equal(await dev.stop(), 0);
  // The held answer's timer ends before the test does.
  await new Promise((r) => setTimeout(r, Math.max(0, heldAt + HOLD_MS + 100 - Date.now())));
});

Deno.test("a kill mid-delivery, then a graceful run that never reached the app: the next still says 'again after a restart'", async () => {
  await using tmp = await withTmpDir();
  const appPort = freePort();
  await writeFile(tmp.path, "hooktap.config.ts", config(appPort));
  const HOLD_MS = 3000;
  let id: string;
  let heldAt: number;
  {
    // The attempt in flight at the kill reached the app (it holds the request): never recorded.
    await using app = startApp(appPort, () => ({ status: 200, delayMs: HOLD_MS }));
    const dev = await startDev(tmp.path);
    id = await post(dev.url, { n: 1 });
    await until(() => app.requests.length === 1, "the attempt in flight");
    heldAt = Date.now();
    await dev.stop("SIGKILL");
    await app.close();
  }
  {
    // The app is down now: this run's tries find nothing listening, and it stops gracefully.
    const dev = await startDev(tmp.path);
    await until(() => RESUME_LINE.test(dev.stderr()), "the resume banner");
    await until(() => dev.stderr().includes(`nothing listens on 127.0.0.1:${appPort}`), "the app-down line");
    assert.equal(await dev.stop("SIGINT"), 0);
    const tries = await deliveries(tmp.path);
    assert.ok(tries.length >= 1 && tries.every((d) => d.refused === true && d.resumed === true));
  }
  // It did not get the killed run's event through: not clean, the event may still have been seen.
  assert.equal((await forwardState(tmp.path)).run, "running");
  await using app = startApp(appPort, () => ({ status: 200 }));
  await using dev = await startDev(tmp.path);
  await until(() => /\[200\]/.test(dev.stdout()), "the delivery line");
  assert.match(dev.stdout(), /\(again after a restart: your app may have seen it\)/);
  const delivered = (await deliveries(tmp.path)).filter((d) => d.outcome === "delivered");
  assert.deepEqual(delivered.map((d) => [d.event, d.attempt, d.resumed]), [[id, 1, true]]);
  assert.equal(app.requests.length, 1);
  assert.equal(await dev.stop(), 0);
  assert.equal((await forwardState(tmp.path)).run, "clean", "delivered: the next start owes no hint");
  // The held answer's timer ends before the test does.
  await new Promise((r) => setTimeout(r, Math.max(0, heldAt + HOLD_MS + 100 - Date.now())));
});

/** A config whose one target retries after 300 ms (`order`: arrival, the default, or parallel). */
function orderConfig(appPort: number, order: "arrival" | "parallel"): string {
  return `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/hook", method: "POST", ` +
    `forward: { to: "http://127.0.0.1:${appPort}/in", order: "${order}", retry: { backoff: [300] } } }] };\n`;
}

/** What the app got: the `n` of each request's body. */
const numbers = (app: { requests: { body: Uint8Array }[] }) =>
  app.requests.map((r) => JSON.parse(new TextDecoder().decode(r.body)).n);

Deno.test("a kill while an arrival-order lane waits behind its first event: only that one says 'again after a restart'", async () => {
  await using tmp = await withTmpDir();
  const HOLD_MS = 3000;
  let heldAt = 0;
  const ids: string[] = [];
  const appPort = freePort();
  await writeFile(tmp.path, "hooktap.config.ts", orderConfig(appPort, "arrival"));
  {
    // The first try answers 500 (the lane then waits, in order); its retry reaches the app and is held.
    await using app = startApp(
      appPort,
      (_req, n) => (n === 1 ? { status: 500 } : { status: 200, delayMs: HOLD_MS }),
    );
    const dev = await startDev(tmp.path);
    ids.push(await post(dev.url, { n: 1 }));
    await until(() => (dev.stdout().match(/\[500\]/g) ?? []).length === 1, "the first try's 500");
    ids.push(await post(dev.url, { n: 2 }), await post(dev.url, { n: 3 }));
    await until(() => app.requests.length === 2, "the retry in flight");
    heldAt = Date.now();
    assert.deepEqual(numbers(app), [1, 1], "the later events wait behind the first: never sent");
    await dev.stop("SIGKILL");
    await app.close();
  }
  await using app = startApp(appPort, () => ({ status: 200 }));
  await using dev = await startDev(tmp.path);
  await until(() => (dev.stdout().match(/\[200\]/g) ?? []).length === 3, "the three deliveries");
  const delivered = (await deliveries(tmp.path)).filter((d) => d.outcome === "delivered");
  // The first had an attempt in flight at the kill (and one answered 500): the app may have seen it.
  assert.deepEqual(delivered.map((d) => [d.event, d.resumed]), [[ids[0], true], [ids[1], undefined], [
    ids[2],
    undefined,
  ]]);
  assert.equal(dev.stdout().match(/again after a restart/g)?.length, 1, dev.stdout());
  assert.deepEqual(numbers(app), [1, 2, 3]);
  assert.equal(await dev.stop(), 0);
  await new Promise((r) => setTimeout(r, Math.max(0, heldAt + HOLD_MS + 100 - Date.now())));
});

Deno.test("a kill with a parallel lane's events all in flight: every one says 'again after a restart'", async () => {
  await using tmp = await withTmpDir();
  const HOLD_MS = 3000;
  let heldAt = 0;
  const ids: string[] = [];
  const appPort = freePort();
  await writeFile(tmp.path, "hooktap.config.ts", orderConfig(appPort, "parallel"));
  {
    await using app = startApp(appPort, () => ({ status: 200, delayMs: HOLD_MS }));
    const dev = await startDev(tmp.path);
    for (let n = 1; n <= 3; n++) ids.push(await post(dev.url, { n }));
    await until(() => app.requests.length === 3, "the three attempts in flight");
    heldAt = Date.now();
    await dev.stop("SIGKILL");
    await app.close();
  }
  await using _app = startApp(appPort, () => ({ status: 200 }));
  await using dev = await startDev(tmp.path);
  await until(() => (dev.stdout().match(/\[200\]/g) ?? []).length === 3, "the three deliveries");
  const delivered = (await deliveries(tmp.path)).filter((d) => d.outcome === "delivered");
  assert.deepEqual(delivered.map((d) => [d.event, d.resumed]).sort(), ids.map((id) => [id, true]).sort());
  assert.equal(dev.stdout().match(/again after a restart/g)?.length, 3, dev.stdout());
  assert.equal(await dev.stop(), 0);
  await new Promise((r) => setTimeout(r, Math.max(0, heldAt + HOLD_MS + 100 - Date.now())));
});
