/**
 * An https target from a hooktap installed with its fixed permissions (`deno task install`: `--allow-sys` only
 * for the host name). With `NODE_EXTRA_CA_CERTS` set, Deno's node:https asks for the whole of `--allow-sys`:
 * the send says so with a fix that works without it (DENO_CERT), and that fix delivers.
 */
import assert from "node:assert/strict";
import { runCli, which, withTmpDir } from "./_helpers.ts";
import { caAndLeaf } from "./_tls.ts";

/** `deno task install`'s permissions (deno.json), those an installed `hooktap trigger` runs with. */
const INSTALL = [
  "--allow-net",
  "--allow-read",
  "--allow-env",
  "--allow-sys=hostname",
  "--allow-write=.hooktap",
];

Deno.test({
  name:
    "trigger --to https:// with NODE_EXTRA_CA_CERTS set and no --allow-sys: a fix that works, then delivered",
  ignore: (await which("openssl")) === undefined,
}, async () => {
  await using tmp = await withTmpDir();
  await using certs = await withTmpDir();
  // A folder with a space, as a company's may be: the fix is given quoted for the shell.
  const folder = `${certs.path}/proxy certs`;
  await Deno.mkdir(folder);
  const { ca, cert, key } = await caAndLeaf(folder);
  const got: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert, key, onListen: () => {} },
    async (request) => {
      got.push(await request.text());
      return new Response("ok");
    },
  );
  await using _ = { [Symbol.asyncDispose]: () => server.shutdown() };
  const to = `https://localhost:${server.addr.port}/hook`;
  const args = ["trigger", "github", "push", "--to", to, "--secret", "s"];
  const refused = await runCli(args, {
    cwd: tmp.path,
    permissions: INSTALL,
    env: { NODE_EXTRA_CA_CERTS: ca },
  });
  const said = refused.stdout + refused.stderr;
  assert.equal(refused.code, 1, said);
  assert.match(said, /NODE_EXTRA_CA_CERTS is set/);
  assert.ok(said.includes(`NODE_EXTRA_CA_CERTS= DENO_CERT='${ca}'`), said);
  assert.doesNotMatch(
    said,
    /run again with the --allow-sys flag/,
    "Deno's words: no fix for an installed hooktap",
  );
  assert.equal(got.length, 0);
  // The fix it gives, as given.
  const sent = await runCli(args, {
    cwd: tmp.path,
    permissions: INSTALL,
    env: { NODE_EXTRA_CA_CERTS: "", DENO_CERT: ca },
  });
  assert.equal(sent.code, 0, sent.stdout + sent.stderr);
  assert.equal(got.length, 1);
});
