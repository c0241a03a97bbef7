import assert from "node:assert/strict";
import { UsageError } from "../errors.ts";
import { parseFixture } from "./fixture.ts";

Deno.test("parseFixture reads {steps: [...]} or the array alone, keeping set, unset and body", () => {
  const steps = [
    { event: "customer.created", set: { "data.object.name": "Ada" } },
    { event: "invoice.paid", unset: ["data.object.metadata"] },
    { event: "charge.succeeded", body: { id: "evt_1" } },
  ];
  assert.deepEqual(parseFixture(JSON.stringify({ steps }), "f.json"), steps);
  assert.deepEqual(parseFixture(JSON.stringify(steps), "f.json"), steps);
});

Deno.test("parseFixture refuses what it cannot send, naming the file, the step and the fix", () => {
  const refused = (text: string, pattern: RegExp) =>
    assert.throws(
      () => parseFixture(text, "f.json"),
      (e: Error) => e instanceof UsageError && pattern.test(e.message),
    );
  refused("{", /--fixture f\.json is not JSON/);
  refused('{"fixtures": []}', /Stripe CLI fixture/);
  refused('{"steps": []}', /has no steps/);
  refused("[1]", /step 1 is not an object/);
  refused('[{"event": "a"}, {"name": "b"}]', /step 2: unknown key "name"/);
  refused('[{"set": {}}]', /step 1 names no event/);
  refused('[{"event": "a", "set": ["x"]}]', /"set" is an object of path: value/);
  refused('[{"event": "a", "unset": "x"}]', /"unset" is a list of paths/);
  refused('[{"event": "a", "body": "x"}]', /"body" is the JSON payload/);
});
