/** The generated catalogs of providers other than GitHub and Stripe match what their generator writes from the pinned packages. */
import assert from "node:assert/strict";
import { generateProviderCatalogs } from "../../scripts/provider_catalogs.ts";

Deno.test("src/providers/<provider>/samples/*.gen.ts are up to date (else run `deno task trigger:providers`)", async () => {
  const root = new URL("../../", import.meta.url);
  const fresh = generateProviderCatalogs();
  assert.ok(fresh.size > 0);
  for (const [path, text] of fresh) {
    const now = await Deno.readTextFile(new URL(path, root));
    assert.ok(now === text, `${path} is stale: run \`deno task trigger:providers\``);
  }
});
