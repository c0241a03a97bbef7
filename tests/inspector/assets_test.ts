/** The bundled page in src/inspector/assets.gen.ts matches its sources in src/inspector/page/. */
import { assertEquals } from "./_assert.ts";
import { generateAssets } from "../../scripts/inspector_assets.ts";

Deno.test("assets.gen.ts is up to date with src/inspector/page/ (else run `deno task inspector:assets`)", async () => {
  const now = await Deno.readTextFile(new URL("../../src/inspector/assets.gen.ts", import.meta.url));
  const fresh = await generateAssets();
  assertEquals(now === fresh, true, "src/inspector/assets.gen.ts is stale: run `deno task inspector:assets`");
});
