import assert from "node:assert/strict";
import { DELIVERY_VERSION, type DeliveryRecord } from "../event/delivery.ts";
import { openDeliveriesLog } from "./deliveries_log.ts";

function record(n: number, body = "ok"): DeliveryRecord {
  return {
    v: DELIVERY_VERSION,
    id: `dlv_20260101_${String(n).padStart(26, "0")}`,
    event: `evt_20260101_${String(n).padStart(26, "0")}`,
    endpoint: "hook",
    source: "forward",
    target: "app",
    url: "http://127.0.0.1:3000/in",
    method: "POST",
    attempt: 1,
    startedAt: new Date(0).toISOString(),
    durationMs: 1.5,
    outcome: "delivered",
    status: 200,
    statusText: "OK",
    headers: [["content-type", "text/plain; charset=utf-8"], ["x-é", "ü\u0000"]],
    body,
    bodyEncoding: "utf8",
    bodySize: new TextEncoder().encode(body).length,
  };
}

Deno.test("the deliveries log: each record one JSON line, in order, batch after batch; a torn last line closed first", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_deliveries_log_" });
  try {
    const path = `${dir}/deliveries.jsonl`;
    await Deno.writeTextFile(path, '{"v":1,"id":"dlv_torn'); // a crash mid-line
    const log = await openDeliveriesLog(path);
    const written: DeliveryRecord[] = [];
    for (let batch = 0; batch < 5; batch++) {
      // Appended in one turn: one write. Bodies of every size, Unicode and escapes, one past the first buffer.
      const records = Array.from(
        { length: 1 + batch * 7 },
        (_, i) => record(batch * 100 + i, i === 3 ? 'é"\\\n😀'.repeat(20_000) : `{"n":${i},"s":"\u2028"}`),
      );
      await Promise.all(records.map((r) => log.append(r)));
      written.push(...records);
    }
    await log.close();
    const expected = '{"v":1,"id":"dlv_torn\n' + written.map((r) => JSON.stringify(r) + "\n").join("");
    assert.equal(await Deno.readTextFile(path), expected);
    await assert.rejects(() => log.append(record(1)), /closed/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
