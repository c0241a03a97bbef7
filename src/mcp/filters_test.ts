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

Deno.test("filters: no mcp module spells out the verdict names (they come from src/names.ts)", async () => {
  // A copy of the list would miss the next verdict name: the tools' schemas take VERDICT_NAMES.
  const copy = /"valid",\s*"invalid",\s*"expired"/;
  for await (const entry of Deno.readDir(new URL(".", import.meta.url))) {
    if (!entry.isFile || !entry.name.endsWith(".ts") || entry.name.endsWith("_test.ts")) continue;
    const source = await Deno.readTextFile(new URL(entry.name, import.meta.url));
    assert.doesNotMatch(source, copy, `src/mcp/${entry.name} lists the verdict names itself`);
  }
});
