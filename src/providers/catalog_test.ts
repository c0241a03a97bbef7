import assert from "node:assert/strict";
import { CATALOG } from "./catalog.ts";
import { PROVIDER_METAS } from "./metas.gen.ts";
import { PROVIDERS } from "./registry.ts";

Deno.test("the catalog lists every registered provider with its title, timestamp and re-sign facts", () => {
  assert.deepEqual(
    Object.entries(CATALOG).map(([name, f]) => [name, f.title, f.timestamped, f.resigns]),
    PROVIDERS.map((p) => [p.name, p.title, p.timestamped, p.resign !== undefined]),
  );
});

Deno.test("each folder's facts agree with its verification: name, title, timestamp and signature headers", () => {
  assert.deepEqual(
    Object.values(PROVIDER_METAS).map((m) => [m.name, m.title, m.timestamped, m.signatureHeaders]),
    PROVIDERS.map((p) => [p.name, p.title, p.timestamped, p.signatureHeaders]),
  );
});
