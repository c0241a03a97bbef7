/**
 * The command `hooktap replay` suggests after failures (issue 33.5),
 * through the real CLI: it keeps every filter and option of the run
 * (shell-quoted, so a shell gives back the same words), and it starts the
 * way the user runs hooktap (`HOOKTAP_INVOKED_AS`, which the npm launcher
 * sets; `hooktap` when it is unset or Deno may not read it).
 */
import assert from "node:assert/strict";
import { LEAST_PRIVILEGE, runCli, withTmpDir } from "./_helpers.ts";
import { captureEvents } from "./_capture.ts";

const CONFIG = `export default {
  port: 0,
  endpoints: [
    { name: "stripe", path: "/stripe", method: "POST", provider: "stripe" },
    { name: "github", path: "/github", method: "POST" },
  ],
};
`;

/** An app that fails every request (500), recording the bodies. */
function failingApp() {
  const got: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    got.push(await req.text());
    return new Response("down for maintenance", { status: 500 });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/hook`,
    got,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** 21 Stripe events, two of them `invoice.paid` with the note "a b", and a GitHub one. */
async function store(dir: string): Promise<void> {
  const stripe = (type: string, note: string) => ({
    path: "/stripe",
    headers: [["content-type", "application/json"], [
      "stripe-signature",
      `t=${Math.floor(Date.now() / 1000)},v1=00`,
    ]] as [
      string,
      string,
    ][],
    body: JSON.stringify({ id: `evt_${crypto.randomUUID()}`, type, note }),
  });
  await captureEvents(dir, [
    ...Array.from({ length: 19 }, () => stripe("customer.created", "a b")),
    stripe("invoice.paid", "a b"),
    stripe("invoice.paid", "a b"),
    stripe("invoice.paid", "other"),
    { path: "/github", body: "{}" },
  ], CONFIG);
}

/** The words a POSIX shell makes of `line`. */
async function shellWords(line: string): Promise<string[]> {
  const r = await new Deno.Command("sh", { args: ["-c", `for w in ${line}; do printf '%s\\0' "$w"; done`] })
    .output();
  assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
  return new TextDecoder().decode(r.stdout).split("\0").slice(0, -1);
}

function hintOf(stderr: string): string {
  const m = stderr.match(/Send them again once the app is fixed[^:]*: (.*)\n/);
  assert.ok(m, stderr);
  return m[1]!;
}

Deno.test("the suggested command keeps the run's filters and options, shell-quoted, and sends the same events again", async () => {
  await using tmp = await withTmpDir();
  await store(tmp.path);
  await using app = failingApp();
  const run = [
    "replay",
    "--endpoint",
    "stripe",
    "--where",
    "note=a b",
    "--type",
    "invoice.paid",
    "--to",
    app.url,
    "-H",
    "X-Note: it's here",
  ];
  const r = await runCli(run, { cwd: tmp.path });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /Sent 2 of 2: 0 answered 2xx, 2 failed\./);
  const hint = hintOf(r.stderr);
  assert.equal(
    hint,
    `hooktap replay --endpoint stripe --where 'note=a b' --type invoice.paid --to ${app.url} -H 'X-Note: it'\\''s here'`,
  );
  // A shell gives back the very words of the run, and running them sends the same two events again.
  const words = await shellWords(hint);
  assert.deepEqual(words, ["hooktap", ...run]);
  const again = await runCli(words.slice(1), { cwd: tmp.path });
  assert.equal(again.code, 1, again.stderr);
  assert.equal(app.got.length, 4);
  assert.deepEqual(app.got.slice(2), app.got.slice(0, 2));
});

Deno.test("the suggested command starts the way the user runs hooktap: HOOKTAP_INVOKED_AS, else hooktap", async () => {
  await using tmp = await withTmpDir();
  await store(tmp.path);
  await using app = failingApp();
  const args = ["replay", "--endpoint", "stripe", "--type", "invoice.paid", "--since", "1h", "--to", app.url];
  const env = { HOOKTAP_INVOKED_AS: "npx hooktap" };
  const npx = await runCli(args, { cwd: tmp.path, env, permissions: [...LEAST_PRIVILEGE, "--allow-env"] });
  assert.equal(npx.code, 1, npx.stderr);
  const hint = hintOf(npx.stderr);
  // --since as the time it stood for: the same events later.
  assert.match(
    hint,
    /^npx hooktap replay --endpoint stripe --since \d{4}-\d\d-\d\dT[\d:.]+Z --type invoice\.paid --to /,
  );
  // Deno may not read the environment (asked without a prompt): the plain name, no error.
  const denied = await runCli(args, { cwd: tmp.path, env });
  assert.equal(denied.code, 1, denied.stderr);
  assert.match(hintOf(denied.stderr), /^hooktap replay --endpoint stripe /);
  // Something that is not a command to run is not printed as one.
  const odd = await runCli(args, {
    cwd: tmp.path,
    env: { HOOKTAP_INVOKED_AS: "rm -rf ~; hooktap" },
    permissions: [...LEAST_PRIVILEGE, "--allow-env"],
  });
  assert.match(hintOf(odd.stderr), /^hooktap replay /);
});

/** The `--to` command a "no forward target" refusal suggests, and the config file it names. */
function toHintOf(stderr: string): { command: string; file: string } {
  const m = stderr.match(/Give --to URL \((.*)\), or set one in (\S+): /);
  assert.ok(m, stderr);
  return { command: m[1]!, file: m[2]! };
}

Deno.test("with no forward target, the suggested --to command is the user's own (filters, --config) and runs when pasted", async () => {
  await using tmp = await withTmpDir();
  await store(tmp.path);
  await Deno.writeTextFile(`${tmp.path}/alt.config.ts`, CONFIG);
  const got: string[] = [];
  await using _app = {
    server: Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
      got.push(new URL(req.url).pathname + " " + await req.text());
      return new Response("ok");
    }),
    [Symbol.asyncDispose]() {
      return this.server.shutdown();
    },
  };
  const appUrl = `http://127.0.0.1:${_app.server.addr.port}/github`;
  const bulk = await runCli(["replay", "--endpoint", "github", "--config", "alt.config.ts"], {
    cwd: tmp.path,
  });
  assert.equal(bulk.code, 2, bulk.stderr);
  assert.doesNotMatch(bulk.stderr, /these events'? --to/);
  const hint = toHintOf(bulk.stderr);
  assert.equal(hint.file, "alt.config.ts");
  const words = await shellWords(hint.command);
  assert.deepEqual(words, [
    "hooktap",
    "replay",
    "--endpoint",
    "github",
    "--to",
    "http://localhost:3000/github",
    "--config",
    "alt.config.ts",
  ]);
  // Pasted (with the app's real port for localhost:3000), it sends the event.
  const pasted = await runCli(words.slice(1).map((w) => w.replace("http://localhost:3000/github", appUrl)), {
    cwd: tmp.path,
  });
  assert.equal(pasted.code, 0, pasted.stderr);
  assert.deepEqual(got, ["/github {}"]);
  // One id: the --to command keeps --config, and the text names alt.config.ts.
  const logs = await runCli(["logs", "--endpoint", "github", "--json"], { cwd: tmp.path });
  const id = (JSON.parse(logs.stdout.trim().split("\n")[0]!) as { id: string }).id;
  const one = await runCli(["replay", id, "--config", "alt.config.ts"], { cwd: tmp.path });
  assert.equal(one.code, 2, one.stderr);
  const oneHint = toHintOf(one.stderr);
  assert.equal(oneHint.file, "alt.config.ts");
  assert.deepEqual(await shellWords(oneHint.command), [
    "hooktap",
    "replay",
    id,
    "--to",
    "http://localhost:3000/github",
    "--config",
    "alt.config.ts",
  ]);
});
