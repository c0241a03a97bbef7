import assert from "node:assert/strict";
import { judgeUnmatched } from "./unmatched.ts";

const at = "2026-01-01T00:00:00.000Z";
const endpoints = [
  { name: "sw", path: "/sw", methods: ["POST"], maxBodySize: 1 },
  { name: "hooks", path: "/hooks/:p", methods: ["PUT"], maxBodySize: 1 },
];

Deno.test("judgeUnmatched() drops what the endpoints accept now and re-judges the rest by them", () => {
  const { refused, accepted } = judgeUnmatched([
    { time: at, method: "POST", path: "/sw", query: "", status: 405, allow: ["P0ST"] }, // accepted now
    { time: at, method: "PUT", path: "/hooks/a", query: "", status: 404 }, // a pattern accepts it now
    { time: at, method: "GET", path: "/sw", query: "", status: 404 }, // the path exists now: a 405
    { time: at, method: "POST", path: "/old", query: "", status: 405, allow: ["POST"] }, // gone: a 404
  ], endpoints);
  assert.deepEqual(accepted.map((e) => `${e.method} ${e.path}`), ["POST /sw", "PUT /hooks/a"]);
  assert.deepEqual(refused, [
    { time: at, method: "GET", path: "/sw", query: "", status: 405, allow: ["POST"] },
    { time: at, method: "POST", path: "/old", query: "", status: 404 },
  ]);
});
