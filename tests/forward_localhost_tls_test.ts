/**
 * A forward target `https://localhost:PORT` reaches an app bound to one loopback family only, as
 * `http://localhost` does (tests/forward_localhost_test.ts): Deno connects to the first address `localhost`
 * resolves to, so an https app on `::1` only was reported down ("nothing listens") while it ran. Its
 * certificate is still checked for `localhost`. The real CLI as a subprocess, a real TLS app on `::1` with a
 * self-signed certificate (made here with `openssl` when it is on the PATH, else the fixed test-only pair in
 * tests/fixtures), trusted through the target's `ca`.
 */
import assert from "node:assert/strict";
import { fileURLToPath as fromFileUrl } from "node:url";
import { runCli, startDev, which, withTmpDir, writeFile } from "./_helpers.ts";

const FIXTURE = (name: string) =>
  fromFileUrl(new URL(`./fixtures/tls_localhost_test_only.${name}.pem`, import.meta.url));

/** A self-signed certificate and key for `name`: made with openssl, else the fixture's (for `localhost`). */
async function certificate(dir: string, name: string): Promise<{ cert: string; key: string } | undefined> {
  if ((await which("openssl")) === undefined) {
    return name === "localhost"
      ? { cert: await Deno.readTextFile(FIXTURE("cert")), key: await Deno.readTextFile(FIXTURE("key")) }
      : undefined;
  }
  const out = await new Deno.Command("openssl", {
    args: [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      `${dir}/${name}.key`,
      "-out",
      `${dir}/${name}.pem`,
      "-days",
      "2",
      "-subj",
      `/CN=${name}`,
      "-addext",
      `subjectAltName=DNS:${name}`,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return {
    cert: await Deno.readTextFile(`${dir}/${name}.pem`),
    key: await Deno.readTextFile(`${dir}/${name}.key`),
  };
}

/** A TLS app on `::1` only that counts what it got, or `undefined` without IPv6 loopback. */
function startV6TlsApp(pair: { cert: string; key: string }) {
  const got: string[] = [];
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({ hostname: "::1", port: 0, ...pair, onListen: () => {} }, async (request) => {
      got.push(await request.text());
      return new Response("ok from ::1 over TLS");
    });
  } catch {
    return undefined;
  }
  return { port: server.addr.port, got, [Symbol.asyncDispose]: () => server.shutdown() };
}

const PERMISSIONS = ["--allow-net", "--allow-read=.", "--allow-write=.hooktap", "--allow-env", "--allow-sys"];

const config = (port: number) =>
  `export default { port: 0, ui: false, endpoints: [{ name: "a", path: "/a", method: "POST", ` +
  `forward: { to: "https://localhost:${port}/hook", ca: "./ca.pem", retry: false } }] };\n`;

Deno.test("forward to https://localhost:PORT reaches a TLS app bound to ::1 only, its certificate checked", async (t) => {
  await using tmp = await withTmpDir();
  const pair = await certificate(tmp.path, "localhost");
  await using app = startV6TlsApp(pair!);
  if (app === undefined) {
    await t.step({ name: "skipped: no IPv6 loopback (::1) on this machine", ignore: true, fn: () => {} });
    return;
  }
  await writeFile(tmp.path, "ca.pem", pair!.cert);
  await writeFile(tmp.path, "hooktap.config.ts", config(app.port));
  await using dev = await startDev(tmp.path, [], { permissions: PERMISSIONS });
  const sent = await fetch(`${dev.url}/a`, { method: "POST", body: '{"n":1}' });
  assert.equal(sent.status, 200);
  await sent.arrayBuffer();
  const deadline = Date.now() + 10_000;
  while (app.got.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(app.got, ['{"n":1}'], dev.stdout() + dev.stderr());
  assert.doesNotMatch(dev.stdout() + dev.stderr(), /nothing listens/);
  assert.equal(await dev.stop(), 0);
  const id = JSON.parse((await runCli(["logs", "--json"], { cwd: tmp.path })).stdout.trim()).id;
  // `replay` trusts the target's `ca` file too (it ignored it, and its hint said to set forward.ca).
  const replayed = await runCli(["replay", id], { cwd: tmp.path, permissions: PERMISSIONS });
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.match(replayed.stdout, /ok from ::1 over TLS/);
  assert.equal(app.got.length, 2);
  // With --to, a config target's `ca` is not used: one that cannot be read does not stop the replay (with
  // --body-file, which loads the config).
  await Deno.remove(`${tmp.path}/ca.pem`);
  await writeFile(tmp.path, "body.json", '{"n":2}');
  const to = `https://localhost:${app.port}/hook`;
  const elsewhere = await runCli(["replay", id, "--to", to, "--insecure", "--body-file", "body.json"], {
    cwd: tmp.path,
    permissions: PERMISSIONS,
  });
  assert.equal(elsewhere.code, 0, elsewhere.stderr);
  assert.deepEqual(app.got.slice(2), ['{"n":2}']);
});

Deno.test("at ::1 for https://localhost, a certificate for another name is still refused", async (t) => {
  await using tmp = await withTmpDir();
  const pair = await certificate(tmp.path, "other.test");
  if (pair === undefined) {
    await t.step({
      name: "skipped: no openssl on the PATH to make a certificate for another name",
      ignore: true,
      fn: () => {},
    });
    return;
  }
  await using app = startV6TlsApp(pair);
  if (app === undefined) {
    await t.step({ name: "skipped: no IPv6 loopback (::1) on this machine", ignore: true, fn: () => {} });
    return;
  }
  await writeFile(tmp.path, "ca.pem", pair.cert);
  await writeFile(tmp.path, "hooktap.config.ts", config(app.port));
  await using dev = await startDev(tmp.path, [], { permissions: PERMISSIONS });
  const sent = await fetch(`${dev.url}/a`, { method: "POST", body: "{}" });
  await sent.arrayBuffer();
  const deadline = Date.now() + 10_000;
  while (!/TLS failed/.test(dev.stdout()) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.match(dev.stdout(), /TLS failed \(.*localhost.*other\.test/, dev.stdout() + dev.stderr());
  assert.deepEqual(app.got, []);
  await dev.stop();
});
