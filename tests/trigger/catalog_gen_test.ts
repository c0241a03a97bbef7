/** GitHub's generated catalog modules match @octokit/webhooks-examples. */
import { assertEquals } from "../inspector/_assert.ts";
import { generateGithubCatalog, GITHUB_DIR } from "../../scripts/trigger_catalog.ts";

Deno.test("src/trigger/catalog/github/*.gen.ts are up to date (else run `deno task trigger:catalog`)", async () => {
  const root = new URL("../../", import.meta.url);
  const fresh = generateGithubCatalog();
  const onDisk: string[] = [];
  for await (const entry of Deno.readDir(new URL(`${GITHUB_DIR}/`, root))) {
    if (entry.name.endsWith(".gen.ts")) onDisk.push(`${GITHUB_DIR}/${entry.name}`);
  }
  assertEquals(onDisk.sort().join("\n"), [...fresh.keys()].sort().join("\n"), "generated files differ");
  for (const [path, text] of fresh) {
    const now = await Deno.readTextFile(new URL(path, root));
    assertEquals(now === text, true, `${path} is stale: run \`deno task trigger:catalog\``);
  }
});
