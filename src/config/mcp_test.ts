import assert from "node:assert/strict";
import { ConfigError } from "../errors.ts";
import { validateConfig } from "./validate.ts";

const base = { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };

Deno.test("config mcp: allowSendTo resolves to normalised URLs; absent, mcp is absent", () => {
  const config = validateConfig({ ...base, mcp: { allowSendTo: ["https://staging.example.com"] } }, null);
  assert.deepEqual(config.mcp, { allowSendTo: ["https://staging.example.com/"] });
  assert.equal(validateConfig(base, null).mcp, undefined);
  assert.deepEqual(validateConfig({ ...base, mcp: {} }, null).mcp, { allowSendTo: [] });
});

Deno.test("config mcp: a bad URL, a list that is not one and an unknown key are reported by field path", () => {
  const problems = (mcp: unknown) => {
    try {
      validateConfig({ ...base, mcp } as never, null);
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.issues.join("\n");
    }
    assert.fail("expected a ConfigError");
  };
  assert.match(
    problems({ allowSendTo: ["https://ok.example.com", "ftp://x", 5] }),
    /mcp\.allowSendTo\[1\] must be an http:\/\/ or https:\/\/ URL[^\n]*\nmcp\.allowSendTo\[2\] must be/,
  );
  assert.match(problems({ allowSendTo: "https://x.example.com" }), /mcp\.allowSendTo must be a list of URLs/);
  assert.match(
    problems({ allowSendTo: ["https://x.example.com/?a=1"] }),
    /mcp\.allowSendTo\[0\] must be a base URL/,
  );
  assert.match(
    problems({ alowSendTo: [] }),
    /mcp\.alowSendTo is not an mcp field: did you mean "allowSendTo"/,
  );
  assert.match(problems(true), /mcp must be an object/);
});
