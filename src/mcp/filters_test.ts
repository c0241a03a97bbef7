import assert from "node:assert/strict";
import { UsageError } from "../errors.ts";
import { filterOf, givenFilters, hasFilterInput } from "./filters.ts";

Deno.test("filters: an empty or false filter sets nothing (agents send every input, empty when unmeant)", () => {
  const unmeant = { undelivered: false, text: "", where: [], has_header: [], endpoint: "" };
  assert.deepEqual(givenFilters(unmeant), {});
  assert.equal(hasFilterInput(unmeant), false);
  assert.deepEqual(filterOf(unmeant), {});
  assert.equal(hasFilterInput({ undelivered: true }), true);
  assert.deepEqual(filterOf({ endpoint: "github", text: "" }), { endpoint: "github" });
});

Deno.test("filters: provider as logs --provider reads it: canonical, an alias, a typo refused", () => {
  assert.deepEqual(filterOf({ provider: "GitHub" }), { provider: "github" });
  assert.deepEqual(filterOf({ provider: "svix" }), { provider: "standard-webhooks" });
  assert.throws(
    () => filterOf({ provider: "githib" }),
    (e: unknown) =>
      e instanceof UsageError && /^provider must name a provider, got "githib": did you mean github\? Known: /
        .test(e.message),
  );
});
