/**
 * `inspect` says whether a received GitHub event matches GitHub's published
 * schema (warn-only, the first differences), through the real CLI: `trigger`
 * sends into a running `dev`, `inspect` reads the store.
 */
import assert from "node:assert/strict";
import { runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";

const CONFIG = `export default {
  port: 0,
  endpoints: [
    { name: "github", path: "/github", method: "POST", provider: "github", secret: "gh-secret" },
    { name: "stripe", path: "/stripe", method: "POST", provider: "stripe", secret: "whsec_x" },
  ],
};
`;

Deno.test("inspect shows a GitHub payload matching GitHub's schema, and the first differences of one that does not", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await using _dev = await startDev(tmp.path);
  const send = async (...args: string[]) => {
    const r = await runCli(["trigger", ...args], { cwd: tmp.path });
    assert.equal(r.code, 0, r.stderr);
  };
  const inspect = async (...args: string[]) => {
    const r = await runCli(["inspect", ...args], { cwd: tmp.path });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  await send("github", "issues.closed");
  const ok = JSON.parse(await inspect("--endpoint", "github", "--json"));
  assert.equal(ok.type, "issues.closed");
  assert.deepEqual(ok.schemaCheck, {
    source: "@octokit/openapi-webhooks@12.1.0",
    type: "issues.closed",
    matches: true,
    differences: [],
  });
  assert.match(
    await inspect("--endpoint", "github"),
    /Schema\n {2}✓ matches issues\.closed in @octokit\/openapi-webhooks@12\.1\.0/,
  );

  await send("github", "issues.closed", "--set", "issue.state=bogus", "--set", 'issue.number="7"');
  const bad = JSON.parse(await inspect("--endpoint", "github", "--json"));
  assert.equal(bad.schemaCheck.matches, false);
  assert.deepEqual(bad.schemaCheck.differences.map((d: { path: string }) => d.path).sort(), [
    "$.issue.number",
    "$.issue.state",
  ]);
  const text = await inspect("--endpoint", "github");
  assert.match(text, /! differs from issues\.closed in @octokit\/openapi-webhooks@12\.1\.0 \(a warning only/);
  assert.match(text, /\$\.issue\.state is "bogus", the schema allows "open", "closed"/);

  // Another provider publishes no schema here: no section, no field.
  await send("stripe", "invoice.paid");
  const stripe = JSON.parse(await inspect("--endpoint", "stripe", "--json"));
  assert.equal(stripe.schemaCheck, undefined);
  assert.doesNotMatch(await inspect("--endpoint", "stripe"), /\nSchema\n/);
});
