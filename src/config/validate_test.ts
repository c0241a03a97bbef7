import assert from "node:assert/strict";
import { ConfigError } from "../errors.ts";
import { STARTER_CONFIG } from "./starter.ts";
import { validateConfig } from "./validate.ts";
import { DEFAULT_SERVER } from "./server.ts";

function issuesOf(input: unknown): readonly string[] {
  try {
    validateConfig(input, "/x/hooktap.config.ts");
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.issues;
  }
  assert.fail("expected a ConfigError");
}

Deno.test("validateConfig() resolves the starter config with its defaults", () => {
  const config = validateConfig(STARTER_CONFIG, null);
  assert.deepEqual(config, {
    port: 8787,
    endpoints: [{ name: "default", path: "/webhook", methods: ["POST"], maxBodySize: 25 * 1024 * 1024 }],
    maxBodySize: 25 * 1024 * 1024,
    ui: { port: null },
    server: DEFAULT_SERVER,
    file: null,
    warnings: [],
  });
});

Deno.test("validateConfig() checks server limits with their field paths and suggests a near key", () => {
  const base = { port: 0, endpoints: [{ name: "a", path: "/a", method: "POST" }] };
  const config = validateConfig({ ...base, server: { bodyTimeoutMs: 1000, maxConnections: 50 } }, null);
  assert.equal(config.server.bodyTimeoutMs, 1000);
  assert.equal(config.server.maxConnections, 50);
  assert.equal(config.server.headersTimeoutMs, DEFAULT_SERVER.headersTimeoutMs);
  assert.throws(
    () => validateConfig({ ...base, server: { bodyTimeoutMS: 5, maxConnections: -1 } }, null),
    (error: ConfigError) => {
      const text = error.issues.join("\n");
      assert.match(text, /server\.bodyTimeoutMS is not a server field: did you mean "bodyTimeoutMs"\?/);
      assert.match(text, /server\.maxConnections must be a whole number, got -1/);
      return true;
    },
  );
  assert.match(
    issuesOf({ ...base, maxBodySize: 1000, server: { maxBodyBytesInFlight: 10 } }).join("\n"),
    /server\.maxBodyBytesInFlight \(10\) must be at least the largest maxBodySize \(1000\)/,
  );
});

Deno.test("validateConfig() upper-cases methods and accepts a list, without repeats", () => {
  const config = validateConfig({
    port: 0,
    endpoints: [{ name: "a", path: "/a", method: ["post", "Put", "POST"] }, {
      name: "b",
      path: "/b",
      method: "get",
    }],
  }, null);
  assert.deepEqual(config.endpoints.map((e) => e.methods), [["POST", "PUT"], ["GET"]]);
  assert.equal(config.port, 0);
});

Deno.test("validateConfig() reports every problem at once, each with its field path", () => {
  const issues = issuesOf({
    port: 70000,
    endpoints: [
      { name: "a", path: "webhook", method: "POST" },
      { name: "a", path: "/b", method: "PO ST" },
      { path: "/c", method: "POST" },
    ],
  });
  assert.equal(issues.length, 5, issues.join("\n"));
  assert.match(issues[0]!, /^port must be an integer from 0 to 65535.*got 70000/);
  assert.match(issues[1]!, /^endpoints\[0\]\.path must be a string starting with "\/", got "webhook"/);
  assert.match(issues[2]!, /^endpoints\[1\]\.name "a" is already used by endpoints\[0\]/);
  assert.match(issues[3]!, /^endpoints\[1\]\.method must be an HTTP method name.*"PO ST"/);
  assert.match(issues[4]!, /^endpoints\[2\]\.name must be a non-empty string/);
});

Deno.test('validateConfig() suggests a name with spaces as the same words joined, and "default" for none', () => {
  const named = (name: unknown) =>
    issuesOf({ port: 1, endpoints: [{ name, path: "/a", method: "POST" }] })[0]!;
  assert.match(named("my app"), /got "my app": use "my-app"$/);
  assert.match(named(" stripe  live "), /use "stripe-live"$/);
  assert.match(named(""), /got "": use "default"$/);
  assert.match(named(42), /use "default"$/);
});

Deno.test("validateConfig() rejects a non-integer port and a negative one", () => {
  assert.match(issuesOf({ port: 1.5, endpoints: STARTER_CONFIG.endpoints })[0]!, /^port .*got 1\.5/);
  assert.match(issuesOf({ port: -1, endpoints: STARTER_CONFIG.endpoints })[0]!, /^port .*got -1/);
  assert.match(issuesOf({ port: "8787", endpoints: STARTER_CONFIG.endpoints })[0]!, /^port .*got "8787"/);
});

Deno.test("validateConfig() rejects empty or missing endpoints", () => {
  assert.match(issuesOf({ port: 1, endpoints: [] })[0]!, /^endpoints must be a non-empty array/);
  assert.match(
    issuesOf({ port: 1 })[0]!,
    /^endpoints must be a non-empty array, got nothing \(the field is missing\)/,
  );
});

Deno.test("validateConfig() rejects two endpoints with the same path and an overlapping method", () => {
  const issues = issuesOf({
    port: 1,
    endpoints: [
      { name: "a", path: "/hook", method: ["POST", "PUT"] },
      { name: "b", path: "/hook", method: "GET" },
      { name: "c", path: "/hook", method: "put" },
    ],
  });
  assert.deepEqual(issues, [
    'endpoints[2] (PUT /hook) overlaps endpoints[0] "a": give one of them another path or method',
  ]);
});

Deno.test("validateConfig() wants paths in normal form, without query or fragment", () => {
  assert.match(
    issuesOf({ port: 1, endpoints: [{ name: "a", path: "/a/../b", method: "POST" }] })[0]!,
    /write "\/b"/,
  );
  assert.match(
    issuesOf({ port: 1, endpoints: [{ name: "a", path: "/a?x=1", method: "POST" }] })[0]!,
    /without "\?"/,
  );
});

Deno.test("validateConfig() names a missing or non-object default export and unknown fields", () => {
  assert.throws(
    () => validateConfig(undefined, "/x/c.ts"),
    /\/x\/c\.ts must default-export an object.*no default export/,
  );
  assert.throws(() => validateConfig([1], "/x/c.ts"), /must default-export an object/);
  assert.match(
    issuesOf({ ...STARTER_CONFIG, prot: 1 })[0]!,
    /^prot is not a config field: did you mean "port"\?/,
  );
});

Deno.test("validateConfig() checks maxBodySize", () => {
  assert.equal(validateConfig({ ...STARTER_CONFIG, maxBodySize: 10 }, null).maxBodySize, 10);
  assert.match(issuesOf({ ...STARTER_CONFIG, maxBodySize: -1 })[0]!, /^maxBodySize must be a whole number/);
});

Deno.test("validateConfig() reports unknown keys inside an endpoint, with a suggestion", () => {
  const issues = issuesOf({ port: 1, endpoints: [{ name: "a", path: "/a", methd: "POST" }] });
  assert.match(issues[0]!, /^endpoints\[0\]\.methd is not an endpoint field: did you mean "method"\?/);
  assert.match(issues[1]!, /^endpoints\[0\]\.method must be an HTTP method name/);
  assert.match(
    issuesOf({ port: 1, endpoints: [{ name: "a", path: "/a", method: "POST", colour: 1 }] })[0]!,
    /^endpoints\[0\]\.colour is not an endpoint field \(known: name, path, method, maxBodySize, forward, provider, .*response\)$/,
  );
});

Deno.test("validateConfig() takes a per-endpoint maxBodySize, defaulting to the config's", () => {
  const config = validateConfig({
    port: 1,
    maxBodySize: 100,
    endpoints: [{ name: "a", path: "/a", method: "POST", maxBodySize: 5 }, {
      name: "b",
      path: "/b",
      method: "POST",
    }],
  }, null);
  assert.deepEqual(config.endpoints.map((e) => e.maxBodySize), [5, 100]);
  assert.match(
    issuesOf({ port: 1, endpoints: [{ name: "a", path: "/a", method: "POST", maxBodySize: "big" }] })[0]!,
    /^endpoints\[0\]\.maxBodySize must be a whole number, got "big"/,
  );
});

Deno.test("validateConfig() suggests the path with a slash, not a fixed one", () => {
  assert.match(
    issuesOf({ port: 1, endpoints: [{ name: "a", path: "github", method: "POST" }] })[0]!,
    /path must be a string starting with "\/", got "github": use "\/github"$/,
  );
});

Deno.test("validateConfig() accepts extension methods but warns when one looks like a typo", () => {
  const config = validateConfig({
    port: 1,
    endpoints: [{ name: "a", path: "/a", method: "P0ST" }, {
      name: "b",
      path: "/b",
      method: ["POTS", "PURGE"],
    }],
  }, null);
  assert.deepEqual(config.endpoints.map((e) => e.methods), [["P0ST"], ["POTS", "PURGE"]]);
  assert.equal(config.warnings.length, 2, config.warnings.join("\n"));
  assert.match(
    config.warnings[0]!,
    /^endpoints\[0\]\.method "P0ST" is not a registered HTTP method: did you mean "POST"\?/,
  );
  assert.match(config.warnings[1]!, /^endpoints\[1\]\.method\[0\] "POTS" .*did you mean "POST"\?/);
});

Deno.test("validateConfig accepts URL patterns and names a broken one by its field path", () => {
  const ok = validateConfig({
    port: 1,
    endpoints: [
      { name: "a", path: "/hooks/:provider", method: "POST" },
      { name: "b", path: "/github/*", method: "POST" },
      { name: "c", path: "/v/:id(\\d+)", method: "POST" },
    ],
  }, null);
  assert.deepEqual(ok.endpoints.map((e) => e.path), ["/hooks/:provider", "/github/*", "/v/:id(\\d+)"]);
  const issues = issuesOf({
    port: 1,
    endpoints: [{ name: "a", path: "/x", method: "POST" }, { name: "b", path: "/hooks/:p(", method: "POST" }],
  });
  assert.equal(issues.length, 1);
  assert.match(issues[0]!, /^endpoints\[1\]\.path "\/hooks\/:p\(" is not a valid URL pattern/);
  assert.deepEqual(issuesOf({ port: 1, endpoints: [{ name: "a", path: "/%77ebhook", method: "POST" }] }), [
    'endpoints[0].path "/%77ebhook" is not in normal form: write "/webhook"',
  ]);
});

Deno.test("validateConfig() warns per endpoint whose secret came out empty (an unset environment variable)", () => {
  const config = validateConfig({
    port: 1,
    endpoints: [
      {
        name: "github",
        path: "/github",
        method: "POST",
        secret: Deno.env.get("HOOKTAP_TEST_UNSET_VARIABLE"),
      },
      { name: "stripe", path: "/stripe", method: "POST", secret: "whsec_x" },
      { name: "plain", path: "/plain", method: "POST" },
    ],
  }, null);
  assert.equal(config.warnings.length, 1, config.warnings.join("\n"));
  assert.match(
    config.warnings[0]!,
    /^endpoint "github": its secret is empty .*set the variable .*and restart/,
  );
  // Node projects read secrets with process.env and keep them in .env: the warning names neither runtime's
  // call alone, and says how a .env file gets in (hooktap reads none itself).
  assert.match(config.warnings[0]!, /process\.env\.NAME or Deno\.env\.get/);
  assert.match(
    config.warnings[0]!,
    /hooktap reads no \.env file; `import "dotenv\/config"` in the config loads one: with the npm package/,
  );
  // A Deno install has no node_modules: the same import, as an npm: specifier (Deno fetches it).
  assert.match(config.warnings[0]!, /with a Deno install as `import "npm:dotenv\/config"`/);
});
