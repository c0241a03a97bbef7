import assert from "node:assert/strict";
import { startDev, withTmpDir, writeFile } from "./_helpers.ts";

const CONFIG = `export default {
  port: 0,
  endpoints: [
    { name: "github", path: "/github", method: "POST", forward: "http://127.0.0.1:9/github",
      secret: Deno.env.get("HOOKTAP_TEST_UNSET_SECRET") },
    { name: "stripe", path: "/stripe", method: "POST", forward: "http://127.0.0.1:9/stripe", secret: "whsec_x" },
  ],
};
`;

Deno.test("dev's banner names the endpoint of each forward target, and warns of an empty secret at start", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await using dev = await startDev(tmp.path, ["--no-ui"], {
    permissions: ["--allow-net", "--allow-read=.", "--allow-write=.hooktap", "--allow-env"],
  });
  const deadline = Date.now() + 10_000;
  while (!/Forwarding "stripe"/.test(dev.stderr()) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const err = dev.stderr();
  assert.match(err, /Forwarding "github" \(queue\) to http:\/\/127\.0\.0\.1:9\/github\n/);
  assert.match(err, /Forwarding "stripe" \(queue\) to http:\/\/127\.0\.0\.1:9\/stripe\n/);
  assert.match(err, /warning: endpoint "github": its secret is empty/);
  assert.doesNotMatch(err, /endpoint "stripe": its secret is empty/);
});
