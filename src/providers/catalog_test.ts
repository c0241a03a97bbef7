import assert from "node:assert/strict";
import { CATALOG } from "./catalog.ts";
import { PROVIDERS } from "./registry.ts";

Deno.test("the catalog lists every registered provider with its title, timestamp and re-sign facts", () => {
  assert.deepEqual(
    Object.entries(CATALOG).map(([name, f]) => [name, f.title, f.timestamped, f.resigns]),
    PROVIDERS.map((p) => [p.name, p.title, p.timestamped, p.resign !== undefined]),
  );
});
