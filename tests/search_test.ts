import assert from "node:assert/strict";
import { runCli, withTmpDir } from "./_helpers.ts";
import { captureEvents } from "./_capture.ts";

const J: [string, string][] = [["content-type", "application/json"]];

Deno.test("`hooktap logs --grep/--where/--has-header/--until/--count` filter the captured events (and)", async () => {
  await using tmp = await withTmpDir();
  const ids = await captureEvents(tmp.path, [
    {
      path: "/webhook",
      headers: [...J, ["X-GitHub-Event", "push"]],
      body: '{"action":"opened","data":{"id":"cus_42"}}',
    },
    {
      path: "/webhook",
      headers: [...J, ["X-GitHub-Event", "ping"]],
      body: '{"action":"closed","data":{"id":"cus_7"}}',
    },
    {
      path: "/webhook",
      headers: [["content-type", "application/octet-stream"]],
      body: new Uint8Array([0xff, 0, ...new TextEncoder().encode("Customer_42"), 0x80]),
    },
  ]);
  const idsOf = async (...args: string[]) => {
    const r = await runCli(["logs", ...args], { cwd: tmp.path });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.match(/evt_\S+/g) ?? [];
  };
  assert.deepEqual(await idsOf("--grep", "customer_42"), [ids[2]]); // the binary body, decoded
  assert.deepEqual(await idsOf("--grep", "cus_42"), [ids[0]]);
  assert.deepEqual(await idsOf("--where", "action=opened"), [ids[0]]);
  assert.deepEqual(await idsOf("--where", "data.id=cus_7", "--has-header", "x-github-event=ping"), [ids[1]]);
  assert.deepEqual(await idsOf("--where", "action=opened", "--has-header", "X-GitHub-Event=ping"), []);
  assert.deepEqual(await idsOf("--has-header", "X-GitHub-Event"), ids.slice(0, 2));
  assert.deepEqual(await idsOf("--until", "2000-01-01"), []);
  const count = await runCli(["logs", "--count", "--grep", "CUS_"], { cwd: tmp.path });
  assert.equal(count.stdout, "0\n");
  assert.equal((await runCli(["logs", "--count", "--where", "action"], { cwd: tmp.path })).stdout, "2\n");
  assert.equal((await runCli(["logs", "--count"], { cwd: tmp.path })).stdout, "3\n");
  const bad = await runCli(["logs", "--where", "=x"], { cwd: tmp.path });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--where must look like field=value/);
});
