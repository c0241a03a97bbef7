import assert from "node:assert/strict";
import { ConfigError } from "../errors.ts";
import { validateConfig } from "./validate.ts";

function issuesOf(endpoint: Record<string, unknown>): string[] {
  try {
    validateConfig({ port: 1, endpoints: [{ name: "a", path: "/a", method: "POST", ...endpoint }] }, null);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.issues];
    throw error;
  }
  return [];
}

Deno.test("validateConfig() resolves an endpoint's signing fields and response", () => {
  const config = validateConfig({
    port: 1,
    endpoints: [{
      name: "a",
      path: "/a",
      method: "POST",
      provider: "Svix",
      secret: ["new", "old"],
      tolerance: 600,
      enforce: true,
      response: { status: 202, body: { ok: 1 }, delayMs: 10 },
    }],
  }, null);
  const e = config.endpoints[0]!;
  assert.deepEqual(e.signing, {
    secrets: ["new", "old"],
    tolerance: 600,
    enforce: true,
    provider: "standard-webhooks",
  });
  assert.deepEqual(e.response, {
    status: 202,
    headers: [["content-type", "application/json"]],
    body: '{"ok":1}',
    delayMs: 10,
  });
  assert.equal(
    validateConfig({ port: 1, endpoints: [{ name: "a", path: "/a", method: "POST" }] }, null).endpoints[0]!
      .signing,
    undefined,
  );
});

Deno.test("validateConfig() reports bad signing fields with their paths and fixes", () => {
  assert.match(
    issuesOf({ provider: "githib" })[0]!,
    /^endpoints\[0\]\.provider "githib" is not a known provider: did you mean "github"\?/,
  );
  assert.match(
    issuesOf({ secret: ["a", undefined] })[0]!,
    /^endpoints\[0\]\.secret\[1\] must be a non-empty string, got nothing \(the field is missing\) \(is the environment variable set/,
  );
  assert.match(issuesOf({ enforce: true })[0]!, /^endpoints\[0\]\.enforce needs a secret or publicKey/);
  assert.match(
    issuesOf({ tolerance: -1 })[0]!,
    /^endpoints\[0\]\.tolerance must be a positive number of seconds/,
  );
  assert.match(
    issuesOf({ hmac: { header: "X-Sig", algoritm: "sha1" } })[0]!,
    /^endpoints\[0\]\.hmac\.algoritm is not an hmac field: did you mean "algorithm"\?/,
  );
  assert.match(
    issuesOf({ hmac: { header: "X-Sig", signed: "{header:T}" } })[0]!,
    /^endpoints\[0\]\.hmac\.signed must be a template containing \{body\}/,
  );
  assert.match(
    issuesOf({ response: { status: 99 } })[0]!,
    /^endpoints\[0\]\.response\.status must be an HTTP status from 200 to 599/,
  );
  assert.match(
    issuesOf({ response: { delayMs: 1e9 } })[0]!,
    /^endpoints\[0\]\.response\.delayMs must be a number of milliseconds from 0 to 120000/,
  );
  assert.match(
    issuesOf({ response: { headers: { "bad name": "x" } } })[0]!,
    /^endpoints\[0\]\.response\.headers has a bad header/,
  );
  assert.match(
    issuesOf({ secrt: "x" })[0]!,
    /^endpoints\[0\]\.secrt is not an endpoint field: did you mean "secret"\?/,
  );
});
