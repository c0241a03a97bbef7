/**
 * The inspector's memory on a long forwarding history (issue 36: never let a backlog grow memory without
 * bound): a real `hooktap ui` over a store whose deliveries log holds 300,000 attempts (a month of `dev`),
 * its RSS from /proc/<pid>/status. Opening the list (five pages, and a `delivery=failed` page) used to
 * read the whole log into a map of every attempt: +173 MB measured here on 300,000 attempts; the states
 * are now read for the rows shown: +28 to 39 MB (mostly garbage not yet collected). The bound is generous
 * (80 MB, over twice that), and under half of what the whole index took.
 * @module
 */
import assert from "node:assert/strict";
import { cliArgs, LEAST_PRIVILEGE, withTmpDir } from "../_helpers.ts";
import { writeDeliveryHistory } from "../_delivery_history.ts";
import { rssKiB } from "./_load.ts";
import { spawnUntil } from "../../bench/proc.ts";

const MB = 1024 * 1024;

Deno.test("opening the inspector's list on a 300,000-attempt history grows its RSS < 80 MB (the whole index: 173 MB)", async () => {
  await using tmp = await withTmpDir();
  const history = await writeDeliveryHistory(tmp.path, { events: 143_000, spacingMs: 18_000 });
  assert.ok(history.attempts >= 300_000, `${history.attempts} attempts`);
  // Started as a person starts it; its stderr read up to the inspector's address, then drained.
  const { child, match: m } = await spawnUntil(
    cliArgs(LEAST_PRIVILEGE, ["ui", "--port", "0"]),
    tmp.path,
    /(http:\/\/127\.0\.0\.1:\d+\/)\?token=([0-9a-f]{64})\s/,
  );
  const [, url, token] = m;
  const headers = { "x-hooktap-token": token! };
  const get = async (query: string) => {
    const r = await fetch(`${url}api/events?${query}`, { headers });
    assert.equal(r.status, 200);
    return await r.json() as { events: { delivery: string }[]; next: number | null };
  };
  try {
    await new Promise((r) => setTimeout(r, 300)); // settled after start-up
    const idle = (await rssKiB(child.pid)) * 1024;
    const first = await get("limit=100");
    assert.equal(first.events.length, 100);
    // Paging on, and a filter over the whole log's states.
    let next = first.next;
    for (let i = 0; i < 5 && next !== null; i++) next = (await get(`limit=100&before=${next}`)).next;
    const failed = await get("delivery=failed&limit=100");
    assert.ok(failed.events.length > 0 && failed.events.every((e) => e.delivery === "failed"));
    const grew = (await rssKiB(child.pid)) * 1024 - idle;
    assert.ok(grew < 80 * MB, `RSS grew ${(grew / MB).toFixed(0)} MB after opening the list`);
  } finally {
    child.kill("SIGINT");
    await child.status;
  }
});
