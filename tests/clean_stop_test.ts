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
  assert.deepEqual(await forwardState(tmp.path), { v: 1, run: "clean" });
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

/** A config whose one target sends in arrival order (the default) or in parallel, `concurrency` at once. */
function laneConfig(appPort: number, order: "arrival" | "parallel", concurrency: number): string {
  return `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/hook", method: "POST", ` +
    `forward: { to: "http://127.0.0.1:${appPort}/in", order: "${order}", concurrency: ${concurrency} } }] };\n`;
}

/** What the app got: the `n` of each request's body. */
const numbers = (app: { requests: { body: Uint8Array }[] }) =>
  app.requests.map((r) => JSON.parse(new TextDecoder().decode(r.body)).n);

/** Kills a dev whose app holds every request, with `count` events posted; returns their ids and when. */
async function killWhileHeld(dir: string, appPort: number, count: number, inFlight: number) {
  const HOLD_MS = 3000;
  const ids: string[] = [];
  await using app = startApp(appPort, () => ({ status: 200, delayMs: HOLD_MS }));
  const dev = await startDev(dir);
  for (let n = 1; n <= count; n++) ids.push(await post(dev.url, { n }));
  await until(() => app.requests.length === inFlight, `${inFlight} attempts in flight`);
  await new Promise((r) => setTimeout(r, 300)); // no more go out
  assert.equal(app.requests.length, inFlight, `the app got ${numbers(app)}`);
  await dev.stop("SIGKILL");
  await app.close();
  return { ids, heldUntil: Date.now() + HOLD_MS + 100 };
}

Deno.test("a kill with an arrival-order lane's head in flight: only what may have gone out says 'again after a restart'", async () => {
  await using tmp = await withTmpDir();
  const appPort = freePort();
  // One at a time: the first is in flight at the kill, the three behind it never went out.
  await writeFile(tmp.path, "hooktap.config.ts", laneConfig(appPort, "arrival", 1));
  const { ids, heldUntil } = await killWhileHeld(tmp.path, appPort, 4, 1);
  await using app = startApp(appPort, () => ({ status: 200 }));
  await using dev = await startDev(tmp.path);
  await until(() => (dev.stdout().match(/\[200\]/g) ?? []).length === 4, "the four deliveries");
  const delivered = (await deliveries(tmp.path)).filter((d) => d.outcome === "delivered");
  assert.deepEqual(delivered.map((d) => [d.event, d.resumed]), [
    [ids[0], true],
    [ids[1], undefined],
    [ids[2], undefined],
    [ids[3], undefined],
  ]);
  assert.equal(dev.stdout().match(/again after a restart/g)?.length, 1, dev.stdout());
  assert.deepEqual(numbers(app), [1, 2, 3, 4]);
  assert.equal(await dev.stop(), 0);
  await new Promise((r) => setTimeout(r, Math.max(0, heldUntil - Date.now())));
});

Deno.test("a kill with a parallel lane's events in flight: every waiting one says 'again after a restart'", async () => {
  await using tmp = await withTmpDir();
  const appPort = freePort();
  await writeFile(tmp.path, "hooktap.config.ts", laneConfig(appPort, "parallel", 3));
  const { ids, heldUntil } = await killWhileHeld(tmp.path, appPort, 3, 3);
  await using _app = startApp(appPort, () => ({ status: 200 }));
  await using dev = await startDev(tmp.path);
  await until(() => (dev.stdout().match(/\[200\]/g) ?? []).length === 3, "the three deliveries");
  const delivered = (await deliveries(tmp.path)).filter((d) => d.outcome === "delivered");
  assert.deepEqual(delivered.map((d) => [d.event, d.resumed]).sort(), ids.map((id) => [id, true]).sort());
  assert.equal(await dev.stop(), 0);
  await new Promise((r) => setTimeout(r, Math.max(0, heldUntil - Date.now())));
});
