import assert from "node:assert/strict";
import { PROVIDER_METAS } from "../src/providers/metas.gen.ts";
import { docsTableProblems } from "./_provider_docs.ts";

const read = (p: string) => Deno.readTextFile(new URL(`../docs/${p}`, import.meta.url));

Deno.test("the docs' provider tables list exactly the index's providers (src/providers/index.ts)", async () => {
  const docs = { signatures: await read("providers-and-signatures.md"), trigger: await read("trigger.md") };
  assert.deepEqual(docsTableProblems(Object.values(PROVIDER_METAS), docs), []);
  // A test of the test: a provider the docs do not list is named.
  const fake = { ...PROVIDER_METAS.telegram!, name: "fakesender", short: "Fake Sender" };
  assert.deepEqual(docsTableProblems([...Object.values(PROVIDER_METAS), fake], docs), [
    "providers-and-signatures.md's table does not list fakesender",
    "trigger.md's table 1 does not list Fake Sender",
    "trigger.md's table 2 does not list Fake Sender",
  ]);
});
