import assert from "node:assert/strict";
import { validateConfig } from "../config/validate.ts";
import type { Endpoint } from "../config/types.ts";
import type { UnmatchedEntry } from "../store/write/unmatched.ts";
import { unmatchedHints } from "./hints.ts";

const { endpoints } = validateConfig({
  port: 1,
  endpoints: [
    { name: "default", path: "/webhook", method: "POST" },
    { name: "gh", path: "/api/hooks/:provider", method: "POST" },
  ],
}, null);

function entry(method: string, path: string, status: 404 | 405, n = 0, allow?: string[]): UnmatchedEntry {
  return {
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    method,
    path,
    query: "",
    status,
    ...(allow ? { allow } : {}),
  };
}

Deno.test("unmatchedHints() says a URL lacks the endpoint path, most frequent first", () => {
  const entries = [
    ...Array.from({ length: 12 }, (_, i) => entry("POST", "/", 404, i)),
    entry("POST", "/api", 404),
    entry("POST", "/api/", 404),
  ];
  const hints = unmatchedHints(entries, endpoints);
  assert.equal(hints[0]?.text, "12 POST requests to / : your sender's URL lacks /webhook");
  assert.equal(hints[0]?.kind, "missing-path");
  assert.equal(hints[0]?.last, "2026-01-01T00:00:11.000Z");
  assert.match(hints[0]!.fix, /end the URL with \/webhook/);
  // A pattern is shown as the parts to fill in, never as a literal `:provider` to paste.
  const api = hints.find((h) => h.path === "/api")!;
  assert.ok(api.text.endsWith("lacks /hooks/<provider>"), api.text);
  assert.match(
    api.fix,
    /end the URL with \/api\/hooks\/<provider> \(<tunnel URL>\/api\/hooks\/<provider>, each <…> filled in/,
  );
  assert.ok(hints.every((h) => !`${h.text} ${h.fix}`.includes(":provider")), JSON.stringify(hints));
  assert.ok(hints.some((h) => h.path === "/api/" && h.kind === "missing-path"));
});

Deno.test("unmatchedHints() names the wrong method and what the path accepts", () => {
  const [hint] = unmatchedHints([entry("GET", "/webhook", 405, 0, ["POST"])], endpoints);
  assert.equal(hint?.kind, "wrong-method");
  assert.equal(hint?.text, "1 GET request to /webhook : wrong method, this path accepts POST");
  assert.match(hint!.fix, /set the sender to POST, or add GET to the method of endpoint "default"/);
});

Deno.test("unmatchedHints() suggests the near path for an old or mistyped one, and the trailing slash", () => {
  const hints = unmatchedHints([
    entry("POST", "/webhok", 404),
    entry("POST", "/webhook/", 404),
    entry("POST", "/zzz/qqq", 404),
  ], endpoints);
  assert.equal(
    hints.find((h) => h.path === "/webhok")?.text,
    "1 POST request to /webhok : no endpoint has this path: did you mean /webhook?",
  );
  assert.match(hints.find((h) => h.path === "/webhook/")!.fix, /drop the trailing/);
  assert.equal(hints.find((h) => h.path === "/zzz/qqq")?.kind, "unknown-path");
  assert.deepEqual(unmatchedHints([], endpoints), []);
});

Deno.test("unmatchedHints() names the endpoint at the requested path in a wrong-method fix, not the first POST one", () => {
  const two: Endpoint[] = [
    { name: "github", path: "/github", methods: ["POST"], maxBodySize: 1 },
    { name: "stripe", path: "/stripe", methods: ["POST"], maxBodySize: 1 },
    { name: "hooks", path: "/hooks/:provider", methods: ["PUT"], maxBodySize: 1 },
  ];
  const [stripe] = unmatchedHints([entry("GET", "/stripe", 405, 0, ["POST"])], two);
  assert.match(stripe!.fix, /add GET to the method of endpoint "stripe"/);
  const [hooks] = unmatchedHints([entry("POST", "/hooks/acme", 405, 0, ["PUT"])], two);
  assert.match(hooks!.fix, /add POST to the method of endpoint "hooks"/);
});

Deno.test("unmatchedHints() names the method too when the endpoint the URL lacks would refuse it", () => {
  const { endpoints } = validateConfig({
    port: 1,
    endpoints: [{ name: "github", path: "/github", method: ["POST", "GET"] }],
  }, null);
  const [put] = unmatchedHints([entry("PUT", "/", 404)], endpoints);
  assert.equal(
    put?.text,
    "1 PUT request to / : your sender's URL lacks /github, and /github takes POST, GET, not PUT",
  );
  assert.match(put!.fix, /end the URL with \/github .* and send POST or GET$/);
  const [post] = unmatchedHints([entry("POST", "/", 404)], endpoints);
  assert.equal(post?.text, "1 POST request to / : your sender's URL lacks /github");
  // Of two endpoints the URL could lack, the one that takes the sender's method.
  const two = validateConfig({
    port: 1,
    endpoints: [{ name: "a", path: "/a", method: "POST" }, { name: "b", path: "/b", method: "PUT" }],
  }, null).endpoints;
  assert.equal(
    unmatchedHints([entry("PUT", "/", 404)], two)[0]?.text,
    "1 PUT request to / : your sender's URL lacks /b",
  );
});
