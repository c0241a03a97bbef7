/**
 * Every subprocess a test starts keeps the variables that make the network work (issue 33, point 11): a
 * test that clears the environment builds it with `cleanEnv`, and what `cleanEnv` keeps reaches the child.
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join, relative } from "node:path";
import { cleanEnv } from "./_helpers.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DENO_JSON_PATH = join(ROOT, "deno.json");

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* sources(path);
    else if (/\.(ts|js|mjs|cjs)$/.test(entry.name)) yield path;
  }
}

/** The call (from its `Command(` or `spawn(` to the end of its options) around each `clearEnv` in `text`. */
function clearingCalls(text: string): { line: number; call: string }[] {
  const found: { line: number; call: string }[] = [];
  for (const m of text.matchAll(/clearEnv\s*:/g)) {
    const at = m.index;
    const start = Math.max(text.lastIndexOf("Command(", at), text.lastIndexOf("spawn(", at), 0);
    const close = text.indexOf("})", at);
    found.push({
      line: text.slice(0, at).split("\n").length,
      call: text.slice(start, close === -1 ? undefined : close),
    });
  }
  return found;
}

Deno.test("no test or benchmark clears a subprocess's environment without cleanEnv", async () => {
  const offenders: string[] = [];
  let checked = 0;
  for (const dir of ["tests", "bench", "scripts"]) {
    for await (const file of sources(join(ROOT, dir))) {
      const name = relative(ROOT, file);
      if (name === "tests/env_test.ts") continue;
      const text = await Deno.readTextFile(file);
      for (const { line, call } of clearingCalls(text)) {
        if (name === "tests/_helpers.ts" && !call.includes("Command(")) continue; // its doc comment
        checked++;
        if (!/env\s*:\s*cleanEnv\(/.test(call)) offenders.push(`${name}:${line}`);
      }
    }
  }
  assert.deepEqual(
    offenders,
    [],
    "clearEnv without env: cleanEnv(...) drops NODE_EXTRA_CA_CERTS and proxies",
  );
  assert.ok(checked >= 6, `the scan found the known clearEnv calls (found ${checked})`);
});

Deno.test("the scan catches a clearEnv without cleanEnv", () => {
  const bad = `new Deno.Command("x", {\n  clearEnv: true,\n  env: { PATH: "/bin" },\n}).output();`;
  const good = `new Deno.Command("x", {\n  clearEnv: true,\n  env: cleanEnv({ PATH: "/bin" }),\n}).output();`;
  assert.equal(clearingCalls(bad).filter(({ call }) => !/env\s*:\s*cleanEnv\(/.test(call)).length, 1);
  assert.equal(clearingCalls(good).filter(({ call }) => !/env\s*:\s*cleanEnv\(/.test(call)).length, 0);
});

Deno.test("cleanEnv keeps CA certificates, proxies and npm settings, and drops the rest", () => {
  const from = {
    NODE_EXTRA_CA_CERTS: "/ca.pem",
    DENO_CERT: "/deno.pem",
    SSL_CERT_FILE: "/ssl.pem",
    HTTP_PROXY: "http://p:1",
    HTTPS_PROXY: "http://p:2",
    http_proxy: "http://p:3",
    https_proxy: "http://p:4",
    NO_PROXY: "localhost",
    no_proxy: "127.0.0.1",
    npm_config_registry: "https://registry.example/",
    npm_config_cafile: "/ca.pem",
    SECRET_TOKEN: "x",
    PATH: "/elsewhere",
  };
  const env = cleanEnv({ PATH: "/bin" }, from);
  const { SECRET_TOKEN: _, PATH: __, ...kept } = from;
  assert.deepEqual(env, { ...kept, PATH: "/bin" });
});

Deno.test("a subprocess started with cleanEnv sees NODE_EXTRA_CA_CERTS", async () => {
  const before = Deno.env.get("NODE_EXTRA_CA_CERTS");
  // A real CA bundle (harmless to every other test); the variable's value is what the child must see.
  const isFile = (p: string) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  };
  const bundle = [
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/cert.pem",
  ]
    .find(isFile);
  if (before === undefined) Deno.env.set("NODE_EXTRA_CA_CERTS", bundle ?? DENO_JSON_PATH);
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "console.log(Deno.env.get('NODE_EXTRA_CA_CERTS') ?? '(unset)')"],
      clearEnv: true,
      env: cleanEnv({ NO_COLOR: "1" }),
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.equal(new TextDecoder().decode(out.stdout).trim(), Deno.env.get("NODE_EXTRA_CA_CERTS"));
    assert.notEqual(Deno.env.get("NODE_EXTRA_CA_CERTS"), undefined);
  } finally {
    if (before === undefined) Deno.env.delete("NODE_EXTRA_CA_CERTS");
  }
});
