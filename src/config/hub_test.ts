import assert from "node:assert/strict";
import { ConfigError } from "../errors.ts";
import { validateConfig } from "./validate.ts";

const base = { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };
const url = "https://hub.example.com/c/JkEMBoAeLjUoRDLxKh0fSQ";

Deno.test("config hub: a channel URL and token resolve as given", () => {
  const config = validateConfig({ ...base, hub: { url, token: "htk_x" } }, null);
  assert.deepEqual(config.hub, { url, token: "htk_x" });
  assert.equal(validateConfig(base, null).hub, undefined);
});

Deno.test("config hub: a URL that is not a channel's, a bad token and an unknown key are reported by field path", () => {
  try {
    validateConfig({ ...base, hub: { url: "https://hub.example.com/", token: 5, tokn: "x" } } as never, null);
    assert.fail("expected a ConfigError");
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    const text = error.issues.join("\n");
    assert.match(text, /hub\.url must be a channel URL/);
    assert.match(text, /hub\.token must be/);
    assert.match(text, /hub\.tokn/);
  }
});
