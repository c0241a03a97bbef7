import assert from "node:assert/strict";
import { envNameOf, issuePath, lineOf, withLines } from "./locate.ts";

const LITERAL = `// hooktap config
export default {
  port: 8787,
  endpoints: [
    { name: "gh", path: "/gh", method: "POST" },
    {
      name: "st",
      path: "st",
      "methd": "POST",
    },
  ],
};
`;

Deno.test("lineOf() finds a field of the literals: its key's line, or the object that lacks it", () => {
  assert.equal(lineOf(LITERAL, "port"), 3);
  assert.equal(lineOf(LITERAL, "endpoints"), 4);
  assert.equal(lineOf(LITERAL, "endpoints[0].path"), 5);
  assert.equal(lineOf(LITERAL, "endpoints[1].path"), 8);
  assert.equal(lineOf(LITERAL, "endpoints[1].methd"), 9);
  assert.equal(lineOf(LITERAL, "endpoints[1].method"), 6, "missing: the object's line");
  assert.equal(lineOf(LITERAL, "endpoints[2].path"), undefined, "no such element");
  assert.equal(lineOf(LITERAL, "endpoints[0].path.x"), undefined, "a string has no fields");
});

Deno.test("lineOf() goes through defineConfig(), satisfies, comments and top-level consts", () => {
  const source = `import type { Config } from "hooktap";
import { defineConfig } from "hooktap";

/* the GitHub endpoint,
   shared */
const github = {
  name: "gh",
  path: "gh",
} satisfies Config["endpoints"][number];

export default defineConfig({
  port: 8787,
  endpoints: [github],
});
`;
  assert.equal(lineOf(source, "endpoints[0].path"), 8);
  assert.equal(lineOf(source, "endpoints[0].method"), 6);
  assert.equal(lineOf(source, "port"), 12);
});

Deno.test("lineOf() says nothing where a spread, a call or code could supply the field", () => {
  const spread = `const base = { method: "POST" };
export default {
  endpoints: [
    { ...base, name: "a", path: "a" },
    { name: "b", method: "PUT", ...base },
  ],
};
`;
  assert.equal(lineOf(spread, "endpoints[0].path"), 4, "written after the spread: it wins");
  assert.equal(lineOf(spread, "endpoints[0].methd"), undefined, "missing, but the spread may hold it");
  assert.equal(lineOf(spread, "endpoints[1].method"), undefined, "the later spread may override it");
  const arraySpread =
    `const more = [{ name: "x" }];\nexport default { endpoints: [...more, { path: "p" }] };\n`;
  assert.equal(lineOf(arraySpread, "endpoints[1].path"), undefined);
  const called = `export default { endpoints: make(), port: 1 };\n`;
  assert.equal(lineOf(called, "endpoints[0].path"), undefined);
  assert.equal(lineOf(called, "port"), 1);
  const regex =
    `export default {\n  port: "x",\n  endpoints: [{ name: "a", path: "/a", method: "POST", when: /x/ }],\n};\n`;
  assert.equal(lineOf(regex, "port"), undefined, "a regular expression: the reader stops");
  const template = "export default {\n  port: `${8787}`,\n};\n";
  assert.equal(lineOf(template, "port"), undefined);
  assert.equal(lineOf(`const c = { port: 1 };\nexport { c as default };\n`, "port"), undefined);
});

Deno.test("issuePath() takes a config field's path only; withLines() appends the line where known", () => {
  assert.equal(
    issuePath('endpoints[1].methd is not an endpoint field: did you mean "method"?'),
    "endpoints[1].methd",
  );
  assert.equal(issuePath("port must be an integer from 0 to 65535"), "port");
  assert.equal(issuePath('endpoint "gh": its secret is empty'), undefined);
  assert.deepEqual(
    withLines(
      ["endpoints[1].path must start with /", 'endpoint "st": a warning', "hub must be an object"],
      LITERAL,
    ),
    [
      "endpoints[1].path must start with / (line 8)",
      'endpoint "st": a warning',
      "hub must be an object (line 2)",
    ],
  );
});

Deno.test("envNameOf: the variable a field reads, written as process.env or Deno.env.get, and nothing else", () => {
  const src = (value: string) =>
    `const base = "x";\nexport default {\n  port: 0,\n  endpoints: [\n    { name: "a", secret: ${value} },\n  ],\n};\n`;
  assert.equal(
    envNameOf(src("process.env.STRIPE_WEBHOOK_SECRET"), "endpoints[0].secret"),
    "STRIPE_WEBHOOK_SECRET",
  );
  assert.equal(envNameOf(src('process.env["SHOP_SECRET"]'), "endpoints[0].secret"), "SHOP_SECRET");
  assert.equal(envNameOf(src('Deno.env.get("STD_SECRET")'), "endpoints[0].secret"), "STD_SECRET");
  // A fallback, a call or a literal: no single variable to name.
  assert.equal(envNameOf(src('process.env.A ?? "dev"'), "endpoints[0].secret"), undefined);
  assert.equal(envNameOf(src("readSecret()"), "endpoints[0].secret"), undefined);
  assert.equal(envNameOf(src('"whsec_x"'), "endpoints[0].secret"), undefined);
  assert.equal(envNameOf(src("process.env.A"), "endpoints[1].secret"), undefined);
});
