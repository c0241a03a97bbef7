import assert from "node:assert/strict";
import { validateConfig } from "../config/validate.ts";
import { expandTarget } from "./expand.ts";
import { matchForm, paramValue } from "../text/url_path.ts";
import { createMatcher, createRouter } from "./router.ts";

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

const routes = validateConfig({
  port: 1,
  endpoints: [
    { name: "any", path: "/hooks/:provider", method: "POST" },
    { name: "gh", path: "/hooks/github", method: "POST" },
    { name: "rest", path: "/github/*", method: "POST" },
    { name: "later", path: "/hooks/:other", method: ["POST", "PUT"] },
    { name: "ghget", path: "/github/status", method: "GET" },
  ],
}, null).endpoints;
const router = createRouter(routes);

Deno.test("an exact path wins over a pattern listed before it", () => {
  const m = router.match("POST", "/hooks/github");
  assert.equal(m.kind === "matched" && m.endpoint.name, "gh");
  assert.equal(m.kind === "matched" && m.params, undefined);
});

Deno.test("patterns are tried in config order and their parameters come back", () => {
  assert.deepEqual(router.match("POST", "/hooks/stripe"), {
    kind: "matched",
    endpoint: routes[0],
    params: { provider: "stripe" },
  });
  // The first pattern does not take PUT; the later one does.
  assert.deepEqual(router.match("PUT", "/hooks/stripe"), {
    kind: "matched",
    endpoint: routes[3],
    params: { other: "stripe" },
  });
  assert.deepEqual(router.match("POST", "/github/a/b"), {
    kind: "matched",
    endpoint: routes[2],
    params: { "0": "a/b" },
  });
});

Deno.test("a path that patterns and exact paths match with other methods gets 405 with all of them", () => {
  assert.deepEqual(router.match("DELETE", "/hooks/x"), {
    kind: "method-not-allowed",
    allow: ["POST", "PUT"],
  });
  assert.deepEqual(router.match("PUT", "/github/status"), {
    kind: "method-not-allowed",
    allow: ["GET", "POST"],
  });
  assert.deepEqual(router.match("POST", "/hooks/a/b"), { kind: "no-endpoint" });
  assert.deepEqual(router.match("POST", "/hooks/"), { kind: "no-endpoint" });
});

Deno.test("percent-encoded paths match their decoded form; %2F never splits a segment", () => {
  const path = (s: string) => new URL(s, "http://localhost").pathname;
  const r = createRouter(
    validateConfig({
      port: 1,
      endpoints: [
        { name: "cafe", path: "/hooks/café", method: "POST" },
        { name: "w", path: "/webhook", method: "POST" },
        { name: "p", path: "/p/:id", method: "POST" },
      ],
    }, null).endpoints,
  );
  for (const p of ["/hooks/café", "/hooks/caf%C3%A9", "/hooks/caf%c3%a9"]) {
    assert.equal(r.match("POST", path(p)).kind, "matched", p);
  }
  assert.equal(r.match("POST", path("/%77ebhook")).kind, "matched");
  assert.equal(r.match("POST", path("/web%68ook")).kind, "matched");
  assert.deepEqual(r.match("POST", path("/p/a%2Fb")), {
    kind: "matched",
    endpoint: r.endpoints[2],
    params: { id: "a%2Fb" },
  });
  assert.deepEqual(r.match("POST", path("/p/caf%C3%A9")), {
    kind: "matched",
    endpoint: r.endpoints[2],
    params: { id: "café" },
  });
  assert.equal(r.match("POST", path("/p/a/b")).kind, "no-endpoint");
  assert.equal(r.match("POST", path("/webhook%2F")).kind, "no-endpoint");
});

Deno.test("matchForm decodes only what may stand bare and upper-cases the rest", () => {
  assert.equal(matchForm("/%41%2f%2F%25%3f%20%7e"), "/A%2F%2F%25%3F%20~");
  assert.equal(paramValue("caf%C3%A9%2Fx%25y%FF"), "café%2Fx%25y%FF");
});

Deno.test("update() swaps the endpoints; later matches see only the new ones", () => {
  const r = createRouter(endpoints);
  r.update(routes);
  assert.equal(r.match("POST", "/webhook").kind, "no-endpoint");
  assert.equal(r.match("POST", "/hooks/x").kind, "matched");
  assert.equal(r.endpoints, routes);
});

Deno.test("expandTarget fills parameters, encodes values, and leaves the port alone", () => {
  assert.equal(
    expandTarget("http://localhost:3000/:provider", { provider: "github" }),
    "http://localhost:3000/github",
  );
  assert.equal(
    expandTarget("http://localhost:3000/in/:p/x", { p: "café bar" }),
    "http://localhost:3000/in/caf%C3%A9%20bar/x",
  );
  assert.equal(expandTarget("http://localhost:3000/all/*", { "0": "a/b" }), "http://localhost:3000/all/a/b");
  assert.equal(expandTarget("http://localhost:3000/:missing", {}), "http://localhost:3000/:missing");
  assert.equal(expandTarget("http://localhost:3000/:id", { id: "a%2Fb" }), "http://localhost:3000/a%2Fb");
});

Deno.test("a pattern with a non-ASCII literal part matches every encoding of it", () => {
  const r = createRouter(
    validateConfig({
      port: 1,
      endpoints: [{ name: "c", path: "/hooks/café/:x", method: "POST" }],
    }, null).endpoints,
  );
  for (const p of ["/hooks/café/1", "/hooks/caf%c3%a9/1", "/hooks/caf%C3%A9/1"]) {
    const m = r.match("POST", new URL(p, "http://localhost").pathname);
    assert.deepEqual(m.kind === "matched" && m.params, { x: "1" }, p);
  }
  assert.equal(r.match("POST", "/hooks/cafe/1").kind, "no-endpoint");
});
