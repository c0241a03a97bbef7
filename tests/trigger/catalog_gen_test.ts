/** GitHub's generated catalog and schema modules match what the generator would write from its pinned sources. */
import { assertEquals } from "../inspector/_assert.ts";
import { generatedOnDisk, generateGithubCatalog } from "../../scripts/trigger_catalog.ts";

Deno.test("src/providers/github/{samples,schema}/*.gen.ts are up to date (else run `deno task trigger:catalog`)", async () => {
  const root = new URL("../../", import.meta.url);
  const fresh = generateGithubCatalog();
  const onDisk = await generatedOnDisk(root);
  assertEquals(onDisk.sort().join("\n"), [...fresh.keys()].sort().join("\n"), "generated files differ");
  for (const [path, text] of fresh) {
    const now = await Deno.readTextFile(new URL(path, root));
    assertEquals(now === text, true, `${path} is stale: run \`deno task trigger:catalog\``);
  }
});
