import assert from "node:assert/strict";
import { validateConfig } from "../config/validate.ts";
import { createMatcher } from "./match.ts";

const { endpoints } = validateConfig({
  port: 1,
  endpoints: [
    { name: "github", path: "/webhook", method: "POST" },
    { name: "poll", path: "/webhook", method: "GET" },
    { name: "stripe", path: "/stripe", method: ["POST", "PUT"] },
  ],
}, null);
const match = createMatcher(endpoints);

Deno.test("matcher selects the endpoint by exact path and method", () => {
  assert.deepEqual(match("POST", "/webhook"), { kind: "matched", endpoint: endpoints[0] });
  assert.deepEqual(match("GET", "/webhook"), { kind: "matched", endpoint: endpoints[1] });
  assert.deepEqual(match("PUT", "/stripe"), { kind: "matched", endpoint: endpoints[2] });
});

Deno.test("matcher answers no-endpoint for / and near misses of a path", () => {
  for (const path of ["/", "/webhook/", "/Webhook", "/webhook/x", "/webhoo"]) {
    assert.deepEqual(match("POST", path), { kind: "no-endpoint" }, path);
  }
});

Deno.test("matcher answers method-not-allowed with every method the path accepts", () => {
  assert.deepEqual(match("DELETE", "/webhook"), { kind: "method-not-allowed", allow: ["POST", "GET"] });
  assert.deepEqual(match("GET", "/stripe"), { kind: "method-not-allowed", allow: ["POST", "PUT"] });
});
