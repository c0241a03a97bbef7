/**
 * `hooktap/testing`, the npm package's test library for Node (npm/testing.js), end to end: the package
 * packed (`deno task pack`) and installed once, with `stripe` and `typescript` from the npm registry (the
 * versions deno.json pins), into a temp Node project; a `node:test` file there starts hooktap with a Stripe
 * endpoint, sends an event signed by `stripe.webhooks.generateTestHeaderString` and waits for it with
 * verdict valid, then triggers `invoice.paid` and checks `stripe.webhooks.constructEvent` accepts what
 * hooktap stored. It runs with `node --test` and must pass; with its expectations flipped it must fail,
 * naming what did arrive. A Node process that ends without stopping hooktap leaves no `deno` behind; `tsc`
 * checks the declarations; the example of docs/testing.md runs as written.
 * @module
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import denoJson from "../deno.json" with { type: "json" };
import { VERDICT_NAMES } from "../src/names.ts";
import { which } from "./_helpers.ts";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

const NPM = await which("npm");
const NODE = await which("node");
const HAS_NODE = NPM !== undefined && NODE !== undefined;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `cmd` in `cwd`; the environment is this process's (network variables included) plus `env`. */
async function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd,
    env: { NO_COLOR: "1", npm_config_update_notifier: "false", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

const NPM_FLAGS = ["--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"];

/** The node:test file a Node user would write. FLIP=1 flips two expectations: the run must then fail. */
const NODE_TEST = String.raw`
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Stripe from "stripe";
import { startHooktap, trigger } from "hooktap/testing";

const SECRET = "whsec_node_testing_secret";
const FLIP = process.env.FLIP === "1";
const stripe = new Stripe("sk_test_not_used");
const endpoints = [{ name: "stripe", path: "/webhooks/stripe", method: "POST", provider: "stripe", secret: SECRET }];

test("a Stripe-signed event is stored with verdict valid", async () => {
  const hooktap = await startHooktap({ endpoints });
  try {
    const payload = JSON.stringify({ id: "evt_node_1", object: "event", type: "payment_intent.succeeded",
      data: { object: { id: "pi_1", amount: 4200 } } });
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET });
    const res = await fetch(hooktap.urlOf("stripe"), {
      method: "POST", body: payload, headers: { "Content-Type": "application/json", "Stripe-Signature": header },
    });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const event = await hooktap.waitFor({ provider: "stripe", verdict: FLIP ? "invalid" : "valid" }, { timeoutMs: 3000 });
    assert.equal(event.type, "payment_intent.succeeded");
    assert.equal(event.endpoint, "stripe");
    assert.equal(event.text(), payload);
    assert.equal(event.json().data.object.amount, 4200);
    assert.equal(event.header("stripe-signature"), header);
    assert.ok(event.receivedAt instanceof Date);
    assert.equal(hooktap.events().length, 1);
  } finally {
    await hooktap.stop();
  }
  assert.throws(() => process.kill(hooktap.pid, 0), { code: "ESRCH" }, "dev is gone after stop()");
  assert.ok(!existsSync(hooktap.dir), "its temp directory is removed");
});

test("trigger invoice.paid; stripe.webhooks.constructEvent accepts what hooktap stored", async () => {
  const hooktap = await startHooktap({ endpoints });
  try {
    const result = await trigger("stripe", "invoice.paid", { to: hooktap, set: { "data.object.amount_paid": 5000 } });
    assert.equal(result.ok, true);
    assert.equal(result.response.status, 200);
    const event = await hooktap.waitFor({ type: "invoice.paid", endpoint: "stripe" });
    assert.equal(event.verdict.status, "valid");
    assert.equal(event.trigger.event, "invoice.paid");
    const parsed = stripe.webhooks.constructEvent(event.text(), event.header("stripe-signature"),
      FLIP ? "whsec_another_secret" : SECRET);
    assert.equal(parsed.type, "invoice.paid");
    assert.equal(parsed.data.object.amount_paid, 5000);
  } finally {
    await hooktap.stop();
  }
});

test("refusals: functions, unknown filter fields, the CLI's own messages, a crash", async () => {
  await assert.rejects(
    startHooktap({ endpoints: [{ name: "a", path: "/a", method: "POST", response: () => ({ status: 202 }) }] }),
    { name: "TypeError", message: /endpoints\[0\]\.response is a function/ },
  );
  await assert.rejects(startHooktap({ endpoints: [{ name: "a", path: "a", method: "POST" }] }),
    /exited \(code 78\) before it listened:[\s\S]*path must be a string starting with "\/"/);
  const hooktap = await startHooktap({ endpoints });
  try {
    await assert.rejects(hooktap.waitFor({ typ: "invoice.paid" }), { name: "TypeError", message: /no field "typ"/ });
    await assert.rejects(trigger("stripe", "invoice.pai", { to: hooktap }), /did you mean invoice\.paid\?/);
    await assert.rejects(trigger("stripe", "invoice.paid", { to: "http://127.0.0.1:1/x" }), /got no answer/);
    const pending = hooktap.waitFor({ type: "charge.refunded" }, { timeoutMs: 10000 });
    process.kill(hooktap.pid, "SIGKILL");
    await assert.rejects(pending, /hooktap dev exited \(SIGKILL\) before an event matched[\s\S]*listening on/);
  } finally {
    await hooktap.stop();
  }
});

test("cwd: a second run sees only its own events; stop keeps the data, removes its config", async () => {
  const cwd = mkdtempSync(join(tmpdir(), "hooktap-cwd-"));
  try {
    for (const body of ["first", "second"]) {
      const hooktap = await startHooktap({ cwd });
      try {
        await fetch(hooktap.url + "/" + body, { method: "POST", body }).then((r) => r.arrayBuffer());
        assert.equal((await hooktap.waitFor({ method: "POST" })).text(), body);
        assert.deepEqual(hooktap.events().map((e) => e.path), ["/" + body]);
      } finally {
        await hooktap.stop();
      }
      assert.ok(!existsSync(join(cwd, "hooktap-testing.config.mjs")));
    }
    assert.equal(readFileSync(join(cwd, ".hooktap", "events.jsonl"), "utf8").trim().split("\n").length, 2);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
`;

/**
 * A Node script that starts hooktap and ends without stopping it, prints dev's pid and the temp directory
 * (with END=SIGTERM it waits to be ended by that signal, which skips Node's `exit` event).
 */
const NO_STOP = `
import { startHooktap } from "hooktap/testing";
const hooktap = await startHooktap();
await fetch(hooktap.url + "/any/path", { method: "PUT", body: "x" }).then((r) => r.arrayBuffer());
const event = await hooktap.waitFor({ method: "put", path: "/any/path" });
console.log(JSON.stringify({ pid: hooktap.pid, dir: hooktap.dir, size: event.size }));
if (process.env.END) setInterval(() => {}, 1000); // busy until the test ends it with that signal
`;

/** Declarations checked by tsc; each @ts-expect-error fails the check when the types let it through. */
const TYPES_TEST = `
import { startHooktap, trigger, type Hooktap, type ReceivedEvent } from "hooktap/testing";
import type { Config } from "hooktap";
const endpoints: Config["endpoints"] = [{ name: "s", path: "/s", method: "POST", provider: "stripe" }];
const hooktap: Hooktap = await startHooktap({ endpoints, startTimeoutMs: 10_000 });
const event: ReceivedEvent = await hooktap.waitFor({ provider: "stripe", verdict: "valid" }, { timeoutMs: 100 });
const status: string | undefined = event.verdict?.status;
const id: string = event.json<{ id: string }>().id;
const result = await trigger("stripe", "invoice.paid", { to: hooktap, set: { "data.object.amount_paid": 5 } });
const code: number = result.response.status;
console.log(status, id, code, hooktap.urlOf("s"));
await hooktap[Symbol.asyncDispose]();
// @ts-expect-error: waitFor's filter has no field typ
await hooktap.waitFor({ typ: "x" });
// @ts-expect-error: not a verdict
await hooktap.waitFor({ verdict: "bad" });
// @ts-expect-error: timeoutMs, not timeout
await hooktap.waitFor({}, { timeout: 5 });
// @ts-expect-error: trigger needs { to }
await trigger("stripe", "invoice.paid", {});
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: "NodeNext",
    moduleResolution: "NodeNext",
    target: "ES2022",
    lib: ["ES2022", "DOM", "ESNext.Disposable"],
    noEmit: true,
    types: [],
  },
  files: ["types_test.ts"],
};

/** `name@version` as deno.json pins it (`"stripe": "npm:stripe@20.4.1"`): the versions the repo tests with. */
function pinned(name: string): string {
  const spec = (denoJson.imports as Record<string, string>)[name] ?? "";
  assert.ok(spec?.startsWith(`npm:${name}@`), `deno.json pins ${name} as npm:${name}@<version>`);
  return spec.slice("npm:".length);
}

/** `deno task pack`, then one install of it with stripe and typescript into a temp Node project. */
async function project(dir: string): Promise<string> {
  const dist = join(dir, "dist");
  const out = await run(Deno.execPath(), ["task", "--quiet", "pack", "--out-dir", dist], ROOT);
  assert.equal(out.code, 0, out.stderr);
  const version = denoJson.version;
  const app = join(dir, "app");
  await Deno.mkdir(app);
  await Deno.writeTextFile(
    join(app, "package.json"),
    '{ "name": "app", "private": true, "type": "module" }\n',
  );
  const install = await run(
    NPM!,
    ["install", ...NPM_FLAGS, join(dist, `hooktap-${version}.tgz`), pinned("stripe"), pinned("typescript")],
    app,
  );
  assert.equal(install.code, 0, install.stderr);
  return app;
}

/** The example of docs/testing.md's "From Node (npm)": it runs as written. */
async function docsExample(): Promise<string> {
  const text = await Deno.readTextFile(join(ROOT, "docs", "testing.md"));
  const section = text.slice(text.indexOf("## From Node (npm)"));
  const code = /^```js\n([\s\S]*?)^```/m.exec(section)?.[1];
  assert.ok(code?.includes("hooktap/testing"), "docs/testing.md's From Node (npm) has a js example");
  return code!;
}

/** `node no_stop.mjs` (END: its ending signal, or "" to end by itself): its first line and how it ended. */
async function runNoStop(app: string, end: string) {
  const child = new Deno.Command(NODE!, {
    args: ["no_stop.mjs"],
    cwd: app,
    env: { END: end },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TransformStream<string, string>({
      transform(chunk, out) {
        for (const part of chunk.split("\n")) if (part.trim() !== "") out.enqueue(part);
      },
    }),
  );
  const reader = lines.getReader();
  const first = await reader.read();
  if (end !== "") child.kill(end as Deno.Signal);
  while (!(await reader.read()).done) { /* drain */ }
  const status = await child.status;
  return { line: first.value ?? "", status, stderr: await stderr };
}

/** Whether process `pid` is gone (no /proc entry, or a zombie waiting to be reaped). */
async function gone(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return / Z /.test(stat.slice(stat.lastIndexOf(")")));
  } catch {
    return true;
  }
}

Deno.test("npm/testing.js's verdict names are src/names.ts's", async () => {
  const text = await Deno.readTextFile(join(ROOT, "npm", "testing.js"));
  const list = /const VERDICTS = (\[[^\]]*\]);/.exec(text)?.[1];
  assert.ok(list, "npm/testing.js declares const VERDICTS = [...]");
  assert.deepEqual(JSON.parse(list), [...VERDICT_NAMES]);
});

/** The member names of `interface name` in the TypeScript `text` (its fields and methods, one per line). */
function members(text: string, name: string): string[] {
  const body = new RegExp(`export interface ${name} \\{\\n([\\s\\S]*?)\\n\\}`).exec(text)?.[1] ?? "";
  return [...body.matchAll(/^ {2}(?:readonly )?(\w+)[?(<:]/gm)].map((m) => m[1]!);
}

Deno.test("npm/testing.d.ts: ReceivedEvent, EventFilter have each member of the Deno library's", async () => {
  const node = await Deno.readTextFile(join(ROOT, "npm", "testing.d.ts"));
  const deno = await Deno.readTextFile(join(ROOT, "src", "testing", "event.ts")) +
    await Deno.readTextFile(join(ROOT, "src", "testing", "wait_for.ts"));
  for (const name of ["ReceivedEvent", "EventFilter"]) {
    const theirs = members(deno, name);
    assert.ok(theirs.length >= 6, `${name} read from src/testing: ${theirs}`);
    const missing = theirs.filter((m) => !members(node, name).includes(m));
    assert.deepEqual(missing, [], `npm/testing.d.ts's ${name} lacks ${missing.join(", ")}`);
  }
});

Deno.test({
  name:
    "hooktap/testing from Node: node:test with stripe passes, fails when it should, leaves no deno, types",
  ignore: !HAS_NODE,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "hooktap_npm_testing_" });
    try {
      const app = await project(dir);
      await Deno.writeTextFile(join(app, "hooks.test.mjs"), NODE_TEST);
      await Deno.writeTextFile(join(app, "docs_example.test.mjs"), await docsExample());

      await t.step(
        "node --test passes: signed event, trigger + constructEvent, refusals, cwd, the docs example",
        async () => {
          const files = ["hooks.test.mjs", "docs_example.test.mjs"];
          const out = await run(NODE!, ["--test", "--test-reporter=tap", ...files], app);
          assert.equal(out.code, 0, out.stdout + out.stderr);
          // hooks.test.mjs's 4 and the docs' 2.
          assert.match(out.stdout, /^# pass 6$/m, out.stdout);
          assert.match(out.stdout, /^# fail 0$/m, out.stdout);
        },
      );

      await t.step("with its expectations flipped the same file fails, naming what did arrive", async () => {
        const out = await run(NODE!, ["--test", "--test-reporter=tap", "hooks.test.mjs"], app, { FLIP: "1" });
        assert.notEqual(out.code, 0, out.stdout);
        assert.match(out.stdout, /^# fail 2$/m, out.stdout);
        assert.match(
          out.stdout,
          /waitFor timed out after 3000 ms: no event matched \{ provider: "stripe", verdict: "invalid" \}/,
        );
        assert.match(
          out.stdout,
          /POST \/webhooks\/stripe \(endpoint stripe, stripe, payment_intent\.succeeded, verdict valid\)/,
        );
        assert.match(out.stdout, /No signatures found matching the expected signature/);
      });

      await t.step(
        "a Node process that ends without stop(), or by SIGTERM, leaves no deno running",
        async () => {
          await Deno.writeTextFile(join(app, "no_stop.mjs"), NO_STOP);
          for (const end of ["", "SIGTERM"]) {
            const { line, status, stderr } = await runNoStop(app, end);
            if (end === "") assert.equal(status.code, 0, stderr);
            else assert.equal(status.signal, end, `node ends by ${end}: ${stderr}`);
            const { pid, dir, size } = JSON.parse(line) as { pid: number; dir: string; size: number };
            assert.equal(size, 1);
            const deadline = Date.now() + 5000;
            while (!await gone(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
            const left = !await gone(pid);
            if (left) Deno.kill(pid, "SIGKILL");
            assert.ok(!left, `hooktap dev (pid ${pid}) outlived the Node process (${end || "normal end"})`);
            assert.ok(!await Deno.stat(dir).then(() => true, () => false), `${dir} is removed`);
          }
        },
      );

      await t.step("tsc checks the declarations", async () => {
        await Deno.writeTextFile(join(app, "types_test.ts"), TYPES_TEST);
        await Deno.writeTextFile(join(app, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
        const out = await run(NODE!, [join(app, "node_modules", "typescript", "bin", "tsc"), "-p", "."], app);
        assert.equal(out.code, 0, out.stdout + out.stderr);
        // The check can fail: a wrong field is an error.
        await Deno.writeTextFile(
          join(app, "types_test.ts"),
          TYPES_TEST.replace('provider: "stripe", verdict', "provider: 1, verdict"),
        );
        const bad = await run(NODE!, [join(app, "node_modules", "typescript", "bin", "tsc"), "-p", "."], app);
        assert.notEqual(bad.code, 0);
        assert.match(bad.stdout, /types_test\.ts\(6,\d+\): error TS2322/);
      });
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
