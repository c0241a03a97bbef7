/**
 * Adding a sender is one folder and one index entry (issue 34): a temp copy of hooktap gets a FAKE provider
 * folder (Dropbox's, renamed "fakesend") and its line in src/providers/index.ts, runs the real generator
 * (`deno task providers`), and then the real derivations see it: detection and verification (examine),
 * trigger (listed, and sent signed to a loopback receiver), completions, and the docs-table check.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ProviderMeta } from "../src/providers/facts.ts";
import { docsTableProblems } from "./_provider_docs.ts";
import { withTmpDir } from "./_helpers.ts";

const ROOT = new URL("../", import.meta.url);

async function copyTree(from: URL, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyTree(new URL(`${e.name}/`, from), join(to, e.name));
    else if (e.isFile) await Deno.copyFile(new URL(e.name, from), join(to, e.name));
  }
}

async function deno(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

/** A copy of hooktap with a "fakesend" provider added the documented way. */
async function withFakeProvider(dir: string): Promise<void> {
  await copyTree(new URL("src/", ROOT), join(dir, "src"));
  for (const f of ["main.ts", "mod.ts", "deno.json", "deno.lock"]) {
    await Deno.copyFile(new URL(f, ROOT), join(dir, f));
  }
  await Deno.mkdir(join(dir, "scripts"));
  await Deno.copyFile(new URL("scripts/provider_metas.ts", ROOT), join(dir, "scripts/provider_metas.ts"));
  const folder = join(dir, "src/providers/fakesend");
  await Deno.mkdir(folder);
  for (const part of ["meta.ts", "verify.ts", "catalog.ts"]) {
    const text = await Deno.readTextFile(new URL(`src/providers/dropbox/${part}`, ROOT));
    await Deno.writeTextFile(
      join(folder, part),
      text.replaceAll("dropbox", "fakesend").replaceAll("Dropbox", "Fakesend"),
    );
  }
  const index = join(dir, "src/providers/index.ts");
  const text = await Deno.readTextFile(index);
  const entry = "  fakesend: {\n" +
    '    verify: () => lazyImport<typeof import("./fakesend/verify.ts")>("src/providers/fakesend/verify.ts"),\n' +
    '    catalog: () => lazyImport<typeof import("./fakesend/catalog.ts")>("src/providers/fakesend/catalog.ts"),\n' +
    "  },\n";
  assert.ok(text.includes("\n  hmac: {\n"));
  await Deno.writeTextFile(index, text.replace("\n  hmac: {\n", `\n${entry}  hmac: {\n`));
  const gen = await deno(dir, ["run", "-A", "scripts/provider_metas.ts"]);
  assert.equal(gen.code, 0, gen.stderr);
}

const PROBE = `
import { examineRequest, createView } from "./src/testing/mod.ts";
import { trigger } from "./src/testing/trigger.ts";
import { triggerProviderNames } from "./src/trigger/registry.ts";
const seen = [];
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {}, onError(e) {
  seen.push({ error: String(e) });
  return new Response("error", { status: 500 });
} }, async (req) => {
  const url = new URL(req.url);
  const view = createView({
    method: req.method, path: url.pathname, query: url.search.slice(1), headers: [...req.headers],
    body: new Uint8Array(await req.arrayBuffer()), receivedAt: new Date(),
  });
  for (const secret of ["s3cret", "wrong"]) {
    const e = await examineRequest(view, { secrets: [secret], tolerance: 300, enforce: false });
    seen.push({ secret, provider: e.provider, type: e.type, status: e.verdict.status });
  }
  return new Response("ok");
});
const result = await trigger("fakesend", "list_folder", { to: "http://127.0.0.1:" + server.addr.port + "/", secret: "s3cret" });
await server.shutdown();
console.log(JSON.stringify({ names: triggerProviderNames(), status: result.response?.status, seen }));
`;

Deno.test("a provider folder and its index line are all it takes: verify, trigger, completions and docs see it", async () => {
  await using tmp = await withTmpDir("hooktap_fake_provider_");
  await withFakeProvider(tmp.path);

  await Deno.writeTextFile(join(tmp.path, "probe.ts"), PROBE);
  const probe = await deno(tmp.path, ["run", "-A", "--quiet", "probe.ts"]);
  assert.equal(probe.code, 0, probe.stderr);
  const out = JSON.parse(probe.stdout);
  assert.ok(out.names.includes("fakesend"), out.names.join(", "));
  assert.equal(out.status, 200, JSON.stringify(out.seen));
  assert.deepEqual(out.seen, [
    { secret: "s3cret", provider: "fakesend", type: "list_folder", status: "valid" },
    { secret: "wrong", provider: "fakesend", type: "list_folder", status: "invalid" },
  ]);

  const cli = (args: string[]) => deno(tmp.path, ["run", "-A", "--quiet", "main.ts", ...args]);
  const list = await cli(["trigger", "--list", "fakesend"]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /list_folder/);
  const complete = await cli(["complete", "--", "trigger", "fake"]);
  assert.equal(complete.code, 0, complete.stderr);
  assert.deepEqual(complete.stdout.trimEnd().split("\n").map((l) => l.split("\t")[0]), ["fakesend"]);

  const { PROVIDER_METAS } = await import(new URL(`file://${tmp.path}/src/providers/metas.gen.ts`).href) as {
    PROVIDER_METAS: Record<string, ProviderMeta>;
  };
  const read = (p: string) => Deno.readTextFile(new URL(`docs/${p}`, ROOT));
  const docs = { signatures: await read("providers-and-signatures.md"), trigger: await read("trigger.md") };
  assert.deepEqual(docsTableProblems(Object.values(PROVIDER_METAS), docs), [
    "providers-and-signatures.md's table does not list fakesend",
    "trigger.md's table 1 does not list Fakesend",
    "trigger.md's table 2 does not list Fakesend",
  ]);
});
