/**
 * A config whose endpoint answers with a function (`response: answer`), as
 * the real CLI runs it: `hooktap dev` calls it in the config's own worker, and
 * a reload (of the config, or of a module it imports) brings a new worker
 * that reads every module anew. The old function kept answering after an edit
 * of the module it came from, since the CLI's isolate had cached it. The
 * replaced generation's worker ends (its timers stop; also when forwarding refuses the
 * edit's targets), an edit that does not load keeps it,
 * and every command exits promptly with such a config.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { readEvents, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

const CONFIG = `import { answer } from "./resp.ts";
export default { port: 0, ui: false, endpoints: [{ name: "a", path: "/a", method: "POST", response: answer }] };
`;

/** resp.ts: answers `word` as a Response with status 202. */
const resp = (word: string, extra = "") =>
  `${extra}export function answer() { return new Response(${JSON.stringify(word)}, { status: 202 }); }\n`;

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !(await ok()); await new Promise((r) => setTimeout(r, 25))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
  }
}

async function post(url: string, body = "{}"): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  return { status: res.status, text: await res.text() };
}

/** Sends SIGINT and resolves to the exit code, or throws when dev is still running after `ms`. */
async function stopWithin(dev: { stop(): Promise<number> }, ms = 15_000): Promise<number> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`dev still ran ${ms} ms after Ctrl-C`)), ms);
  });
  try {
    return await Promise.race([dev.stop(), hung]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("dev: an edit of the module a response function comes from answers the next request", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  const module = await writeFile(tmp.path, "resp.ts", resp("one"));
  await using dev = await startDev(tmp.path, ["--quiet"]);
  assert.deepEqual(
    await post(`${dev.url}/a`),
    { status: 202, text: "one" },
    "a returned Response is answered",
  );
  await Deno.writeTextFile(module, resp("two"));
  await until("the reload", () => /Config reloaded/.test(dev.stderr()));
  assert.match(dev.stderr(), /Config reloaded:\n {2}~ POST \/a \(a\): response changed\n/);
  assert.deepEqual(await post(`${dev.url}/a`), { status: 202, text: "two" });
  await Deno.writeTextFile(module, resp("three"));
  await until("the second reload", () => dev.stderr().match(/Config reloaded/g)?.length === 2);
  assert.deepEqual(await post(`${dev.url}/a`), { status: 202, text: "three" });
  assert.equal(await stopWithin(dev), 0);
  const events = await readEvents(tmp.path);
  assert.deepEqual(events.map((e) => (e.response as { body: string }).body), ["one", "two", "three"]);
});

Deno.test("dev: an edit of a helper the function calls, its own text unchanged, answers anew and says so", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  const helper = (word: string) => `export const word = () => ${JSON.stringify(word)};\n`;
  const words = await writeFile(tmp.path, "words.ts", helper("one"));
  await writeFile(
    tmp.path,
    "resp.ts",
    `import { word } from "./words.ts";\nexport function answer() { return { status: 202, body: word() }; }\n`,
  );
  await using dev = await startDev(tmp.path, ["--quiet"]);
  assert.deepEqual(await post(`${dev.url}/a`), { status: 202, text: "one" });
  await Deno.writeTextFile(words, helper("two"));
  await until("the reload", () => /Config reloaded/.test(dev.stderr()));
  assert.match(dev.stderr(), /Config reloaded:\n {2}~ POST \/a \(a\): response function reloaded\n/);
  assert.deepEqual(await post(`${dev.url}/a`), { status: 202, text: "two" });
  assert.equal(await stopWithin(dev), 0);
});

Deno.test("dev: an edit of the config's own function answers with the new one", async () => {
  await using tmp = await withTmpDir();
  const inline = (status: number) =>
    `export default { port: 0, ui: false, endpoints: [{ name: "a", path: "/a", method: "POST",\n` +
    `  response: (event) => ({ status: ${status}, body: { id: event.id, n: ${status} } }) }] };\n`;
  const file = await writeFile(tmp.path, "hooktap.config.ts", inline(201));
  await using dev = await startDev(tmp.path, ["--quiet"]);
  const first = await post(`${dev.url}/a`);
  assert.equal(first.status, 201);
  assert.match(first.text, /^\{"id":"evt_\w+","n":201\}$/, "the function got the event");
  await Deno.writeTextFile(file, inline(203));
  await until("the reload", () => /Config reloaded/.test(dev.stderr()));
  assert.match(dev.stderr(), /~ POST \/a \(a\): response changed/);
  const second = await post(`${dev.url}/a`);
  assert.equal(second.status, 203);
  assert.match(second.text, /"n":203/);
  assert.equal(await stopWithin(dev), 0);
});

Deno.test("dev: a response function that throws answers 500 with the reason; one returning a Response, its answer", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [\n` +
      `  { name: "boom", path: "/boom", method: "POST", response: () => { throw new Error("no answer today"); } },\n` +
      `  { name: "res", path: "/res", method: "POST",\n` +
      `    response: async (e) => new Response("made " + e.method, { status: 418, headers: { "x-made": "yes" } }) },\n` +
      `] };\n`,
  );
  await using dev = await startDev(tmp.path, ["--quiet"]);
  assert.deepEqual(await post(`${dev.url}/boom`), {
    status: 500,
    text: "the endpoint's response function threw: no answer today",
  });
  const res = await fetch(`${dev.url}/res`, { method: "POST", body: "x" });
  assert.equal(res.status, 418);
  assert.equal(res.headers.get("x-made"), "yes");
  assert.equal(await res.text(), "made POST");
  assert.equal(await stopWithin(dev), 0);
});

Deno.test("dev: an uncaught error in the config's code fails the calls after it, saying why; dev goes on", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "a", path: "/a", method: "POST", response: () => {\n` +
      `  setTimeout(() => { throw new Error("late trouble"); }, 0); return { status: 201 }; } }] };\n`,
  );
  await using dev = await startDev(tmp.path, ["--quiet"]);
  assert.equal((await post(`${dev.url}/a`)).status, 201);
  await until("the error", () => /late trouble/.test(dev.stderr()));
  const after = await post(`${dev.url}/a`);
  assert.equal(after.status, 500);
  assert.match(
    after.text,
    /^the endpoint's response function did not (?:run|answer): the config's code stopped on an uncaught error \(.*late trouble\); save the config to load it again$/,
  );
  assert.equal(await stopWithin(dev), 0);
});

/** Module text that ticks a file of generation `id` every 30 ms while its worker runs. */
const ticking = (id: string) =>
  `setInterval(() => {\n` +
  `  Deno.writeTextFileSync("tick-${id}.tmp", String(Date.now()));\n` +
  `  Deno.renameSync("tick-${id}.tmp", "tick-${id}"); // whole: a read never sees it half written\n` +
  `}, 30);\n`;

/** The last tick of generation `id` in `dir` (0 before the first). */
const tickOf = (dir: string, id: string) => Deno.readTextFile(join(dir, `tick-${id}`)).then(Number, () => 0);

/** Whether generation `id`'s worker ticked within 300 ms. */
async function ticksIn(dir: string, id: string): Promise<boolean> {
  const before = await tickOf(dir, id);
  await new Promise((r) => setTimeout(r, 300));
  return (await tickOf(dir, id)) > before;
}

Deno.test("dev: a reload ends the replaced config's worker; a refused edit keeps it; dev stops promptly", async () => {
  await using tmp = await withTmpDir();
  const file = await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  const module = await writeFile(tmp.path, "resp.ts", resp("one", ticking("1")));
  await using dev = await startDev(tmp.path, ["--quiet"], { permissions: ["-A"] });
  const tick = (id: string) => tickOf(tmp.path, id);
  const ticksOn = (id: string) => ticksIn(tmp.path, id);
  await until("generation 1 ticking", () => ticksOn("1"));
  await Deno.writeTextFile(file, CONFIG.replace("port: 0", "port: 'x'"));
  await until("the refusal", () => /port must be/.test(dev.stderr()));
  assert.ok(await ticksOn("1"), "a refused edit keeps the running config's worker");
  await Deno.writeTextFile(module, resp("two", ticking("2")));
  await Deno.writeTextFile(file, CONFIG);
  await until("the reload", () => /Config reloaded/.test(dev.stderr()));
  await until("generation 2 ticking", () => ticksOn("2"));
  assert.deepEqual(await post(`${dev.url}/a`), { status: 202, text: "two" });
  await until("generation 1 ended", async () => !(await ticksOn("1")));
  assert.equal(await stopWithin(dev), 0);
  const last = await tick("2");
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(await tick("2"), last, "nothing of the config runs after dev exited");
});

Deno.test("dev: an edit whose forward target forwarding refuses still ends the replaced config's worker", async () => {
  await using tmp = await withTmpDir();
  const forwarding = (to: string) =>
    CONFIG.replace("response: answer", `response: answer, forward: { to: "${to}" }`);
  // A closed port: nothing listens there, events would wait.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closed = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const file = await writeFile(tmp.path, "hooktap.config.ts", forwarding(`http://127.0.0.1:${closed}/x`));
  const module = await writeFile(tmp.path, "resp.ts", resp("one", ticking("1")));
  await using dev = await startDev(tmp.path, ["--quiet"], { permissions: ["-A"] });
  const ticksOn = (id: string) => ticksIn(tmp.path, id);
  await until("generation 1 ticking", () => ticksOn("1"));
  // The edit points the target at dev's own receiver: forwarding refuses it, the router serves the new config.
  await Deno.writeTextFile(module, resp("two", ticking("2")));
  await Deno.writeTextFile(file, forwarding(`http://127.0.0.1:${dev.port}/x`));
  await until("the refusal", () => /keeping the running forward targets/.test(dev.stderr()));
  await until("generation 2 ticking", () => ticksOn("2"));
  assert.equal((await post(`${dev.url}/a`)).text, "two");
  await until("generation 1 ended", async () => !(await ticksOn("1")));
  assert.equal(await stopWithin(dev), 0);
});

Deno.test("logs, replay --to and inspect load a config with a response function and exit", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  // A module that would keep a live worker running forever.
  await writeFile(tmp.path, "resp.ts", resp("one", "setInterval(() => {}, 1000);\n"));
  {
    await using dev = await startDev(tmp.path, ["--quiet"]);
    assert.equal((await post(`${dev.url}/a`, '{"n":1}')).status, 202);
    assert.equal(await stopWithin(dev), 0);
  }
  const [event] = await readEvents(tmp.path);
  const logs = await runCli(["logs", "--json"], { cwd: tmp.path, timeoutMs: 20_000 });
  assert.equal(logs.timedOut, undefined, `logs did not exit:\n${logs.stderr}`);
  assert.equal(logs.code, 0, logs.stderr);
  assert.equal(JSON.parse(logs.stdout.trim()).id, event!.id);
  const got: string[] = [];
  await using app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    got.push(await req.text());
    return new Response("ok");
  });
  const replay = await runCli(["replay", String(event!.id), "--to", `http://127.0.0.1:${app.addr.port}/`], {
    cwd: tmp.path,
    timeoutMs: 20_000,
  });
  assert.equal(replay.timedOut, undefined, `replay did not exit:\n${replay.stderr}`);
  assert.equal(replay.code, 0, replay.stderr);
  assert.deepEqual(got, ['{"n":1}']);
  const inspect = await runCli(["inspect", String(event!.id)], { cwd: tmp.path, timeoutMs: 20_000 });
  assert.equal(inspect.timedOut, undefined, `inspect did not exit:\n${inspect.stderr}`);
  assert.equal(inspect.code, 0, inspect.stderr);
  assert.match(inspect.stdout, /Response \(custom\)\n {2}status {2}202\n/);
});
