import assert from "node:assert/strict";
import { generateMetas, generateVerifiers } from "../../scripts/provider_metas.ts";
import { PROVIDER_INDEX } from "./index.ts";
import { PROVIDER_METAS } from "./metas.gen.ts";

const ROOT = new URL("../../", import.meta.url);
const exists = (path: string) => Deno.stat(new URL(path, ROOT)).then((s) => s.isFile, () => false);

/** The provider folders on disk (src/providers/<folder>/ with any file; `_`-prefixed and helpers aside). */
async function folders(): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(new URL("src/providers/", ROOT))) {
    if (e.isDirectory && !e.name.startsWith("_")) out.push(e.name);
  }
  return out.sort();
}

Deno.test("every provider folder has an index entry and every entry a folder with its parts (meta, verify, catalog)", async () => {
  assert.deepEqual(await folders(), Object.keys(PROVIDER_INDEX).sort());
  for (const [folder, parts] of Object.entries(PROVIDER_INDEX)) {
    const meta = PROVIDER_METAS[folder];
    assert.ok(meta !== undefined, `${folder}: no facts in metas.gen.ts (run \`deno task providers\`)`);
    for (const part of ["meta.ts", "verify.ts"]) {
      assert.ok(
        await exists(`src/providers/${folder}/${part}`),
        `src/providers/${folder}/${part} is missing`,
      );
    }
    assert.equal(
      await exists(`src/providers/${folder}/catalog.ts`),
      meta.triggerable,
      `${folder}: catalog.ts`,
    );
    assert.equal(parts.catalog !== undefined, meta.triggerable, `${folder}: the index's catalog loader`);
    assert.equal(
      await exists(`src/providers/${folder}/schema.ts`),
      meta.schema === true,
      `${folder}: schema.ts`,
    );
    assert.equal(parts.schema !== undefined, meta.schema === true, `${folder}: the index's schema loader`);
    const { provider } = await parts.verify();
    assert.equal(provider.name, meta.name, `${folder}: verify.ts's provider is ${meta.name}`);
    if (parts.catalog !== undefined) {
      assert.equal((await parts.catalog()).catalog.provider, meta.name, folder);
    }
  }
});

Deno.test("src/providers/{metas,verifiers}.gen.ts are what `deno task providers` writes, each entry its folder's", async () => {
  const text = await Deno.readTextFile(new URL("src/providers/metas.gen.ts", ROOT));
  // `deno task providers` formats what it writes; the formatter leaves these texts as they are.
  assert.equal(text, await generateMetas(ROOT));
  assert.equal(await Deno.readTextFile(new URL("src/providers/verifiers.gen.ts", ROOT)), generateVerifiers());
  for (const folder of Object.keys(PROVIDER_INDEX)) {
    const { meta } = await import(new URL(`src/providers/${folder}/meta.ts`, ROOT).href);
    assert.deepEqual(PROVIDER_METAS[folder], meta, folder);
  }
  assert.deepEqual(Object.keys(PROVIDER_METAS), Object.keys(PROVIDER_INDEX));
});

Deno.test("each meta.ts is pure data: it imports nothing but types", async () => {
  for (const folder of Object.keys(PROVIDER_INDEX)) {
    const text = await Deno.readTextFile(new URL(`src/providers/${folder}/meta.ts`, ROOT));
    const imports = text.match(/^import .*$/gm) ?? [];
    assert.ok(imports.every((l) => l.startsWith("import type ")), `${folder}/meta.ts: ${imports.join("; ")}`);
  }
});
