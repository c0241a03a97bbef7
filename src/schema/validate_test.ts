import assert from "node:assert/strict";
import { differences, type Schema } from "./validate.ts";

const root = {
  components: {
    schemas: {
      user: { type: "object", properties: { login: { type: "string" } }, required: ["login"] },
    },
  },
};
const check = (value: unknown, schema: Schema, max?: number) =>
  differences(value, schema, root, max).map((d) => `${d.path} ${d.message}`);

Deno.test("differences: a conforming value has none; each difference names its path", () => {
  const schema: Schema = {
    type: "object",
    properties: {
      action: { type: "string", enum: ["closed"] },
      sender: { $ref: "#/components/schemas/user" },
      closed_at: { type: ["string", "null"], format: "date-time" },
      "odd key": { type: "integer", minimum: 1 },
      labels: { type: "array", items: { type: "string", maxLength: 3 } },
    },
    required: ["action", "sender"],
    additionalProperties: false,
  };
  assert.deepEqual(check({ action: "closed", sender: { login: "a" }, closed_at: null }, schema), []);
  assert.deepEqual(
    check(
      { action: "open", sender: {}, closed_at: "yesterday", "odd key": 0, labels: ["abcd"], x: 1 },
      schema,
    ),
    [
      '$.action is "open", the schema allows "closed"',
      "$.sender.login is missing (required)",
      '$.closed_at "yesterday" is not a date-time',
      '$["odd key"] is 0, below the minimum 1',
      "$.labels[0] is longer than 3 characters",
      "$.x is not in the schema (no other fields allowed)",
    ],
  );
  assert.deepEqual(check({}, schema, 1), ["$.action is missing (required)"]);
  assert.deepEqual(check(1.5, { type: "integer" }), ["$ is number, the schema wants integer"]);
  assert.deepEqual(check(3, { type: "number" }), [], "an integer is a number");
  assert.deepEqual(check(null, { type: "string", nullable: true }), [], "OpenAPI 3.0's nullable");
  assert.deepEqual(
    check(["a"], { type: "array", minItems: 2, items: { type: "string", pattern: "^b", minLength: 2 } }),
    [
      "$ has 1 items, the schema wants at least 2",
      "$[0] is shorter than 2 characters",
    ],
  );
  assert.deepEqual(check("ax", { type: "string", pattern: "^b" }), ['$ "ax" does not match ^b']);
});

Deno.test("differences: oneOf wants exactly one variant, anyOf at least one; allOf every part", () => {
  const one: Schema = { oneOf: [{ type: "string" }, { type: "string", maxLength: 2 }] };
  assert.deepEqual(check("abc", one), []);
  assert.deepEqual(check("ab", one), ["$ matches 2 of the oneOf variants, the schema wants exactly one"]);
  assert.deepEqual(check(true, { anyOf: [{ type: "string" }, { type: "integer" }] }), [
    "$ is boolean, the schema wants string",
  ]);
  assert.deepEqual(check({ login: 1 }, { allOf: [{ $ref: "#/components/schemas/user" }] }), [
    "$.login is integer, the schema wants string",
  ]);
  assert.throws(() => check(1, { $ref: "#/components/schemas/nope" }), /unresolved \$ref/);
});
