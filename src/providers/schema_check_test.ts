import assert from "node:assert/strict";
import { checkSchema } from "./schema_check.ts";
import type { PayloadSchema } from "./schemas.ts";

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("checkSchema loads a provider's schema only for that provider's events, and checks JSON or GitHub's form field", async () => {
  let loads = 0;
  const schema: PayloadSchema = {
    source: "test-schema@1.0.0",
    schemaOf: (type) =>
      Promise.resolve(
        type === "ping"
          ? {
            schema: { type: "object", required: ["zen"], properties: { zen: { type: "string" } } },
            root: {},
          }
          : undefined,
      ),
  };
  const hooks = { github: () => (loads++, Promise.resolve(schema)) };
  assert.equal(
    await checkSchema({ provider: "stripe", type: "ping", body: encode("{}") }, { hooks }),
    undefined,
  );
  assert.equal(await checkSchema({ provider: "github", body: encode("{}") }, { hooks }), undefined);
  assert.equal(
    await checkSchema({ provider: "github", type: "ping", body: encode("not json") }, { hooks }),
    undefined,
  );
  assert.equal(loads, 0, "nothing to check: the schema is not loaded");
  assert.deepEqual(
    await checkSchema({ provider: "github", type: "ping", body: encode('{"zen":"x"}') }, { hooks }),
    {
      source: "test-schema@1.0.0",
      type: "ping",
      matches: true,
      differences: [],
    },
  );
  const form = await checkSchema({
    provider: "github",
    type: "ping",
    body: encode(`payload=${encodeURIComponent('{"zen":1}')}`),
    contentType: "application/x-www-form-urlencoded",
  }, { hooks });
  assert.deepEqual(form?.differences, [{ path: "$.zen", message: "is integer, the schema wants string" }]);
  assert.equal(
    await checkSchema({ provider: "github", type: "push", body: encode("{}") }, { hooks }),
    undefined,
  );
});
