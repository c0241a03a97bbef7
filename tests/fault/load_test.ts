/**
 * Load: 10,000 mixed webhooks over 200 concurrent keep-alive connections
 * against a real `hooktap dev`; every one acknowledged, stored once, in
 * order, byte-exact.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { LOAD_CONFIG, payload, runLoad, splitLog, storedSha } from "./_load.ts";

const TOTAL = Number(Deno.env.get("HOOKTAP_LOAD_REQUESTS") ?? 10_000);
const CONNECTIONS = 200;

Deno.test(`${TOTAL} mixed POSTs over ${CONNECTIONS} keep-alive connections are all stored, once, in order, byte-exact`, async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  await using dev = await startDev(tmp.path, ["--quiet"]);

  const started = performance.now();
  const result = await runLoad({ port: dev.port, connections: CONNECTIONS, total: TOTAL });
  const seconds = (performance.now() - started) / 1000;

  assert.deepEqual(result.clientErrors, 0, "no request may fail at the client");
  assert.deepEqual(
    [...result.statuses],
    [[200, TOTAL]],
    `every response must be 200; others: ${result.otherBodies.join(" | ")}`,
  );
  assert.deepEqual(result.acked.size, TOTAL, "every 200 carries its own event id");

  const text = await Deno.readTextFile(join(tmp.path, ".hooktap", "events.jsonl"));
  const { lines, torn } = splitLog(text);
  assert.deepEqual(torn, "", "the log ends with a newline");
  assert.deepEqual(lines.length, TOTAL, "exactly one line per request");

  const seen = new Set<string>();
  let previous = "";
  const kinds = new Map<string, number>();
  for (const line of lines) {
    const event = JSON.parse(line) as Record<string, unknown>;
    const id = event.id as string;
    assert(!seen.has(id), `duplicate id ${id}`);
    seen.add(id);
    assert(id > previous, `ids must rise in file order: ${previous} then ${id}`);
    previous = id;
    const sent = result.acked.get(id);
    assert(sent !== undefined, `stored id ${id} was never acknowledged`);
    assert.deepEqual(event.bodySize, sent.size, `bodySize of request ${sent.index}`);
    assert.deepEqual(await storedSha(event), sent.sha, `body of request ${sent.index} (${sent.kind})`);
    assert.deepEqual(
      event.bodyEncoding,
      sent.kind === "binary" || (sent.kind === "large" && payload(sent.index).contentType?.includes("octet"))
        ? "base64"
        : "utf8",
    );
    kinds.set(sent.kind, (kinds.get(sent.kind) ?? 0) + 1);
  }
  assert.deepEqual(await dev.stop("SIGTERM"), 0);
  const mb = (result.bytes / 1e6).toFixed(1);
  const mix = [...kinds].map(([k, n]) => `${k} ${n}`).join(", ");
  // deno-lint-ignore no-console
  console.log(
    `load: ${result.sent} sent, ${lines.length} stored, ${mb} MB of bodies (${mix}), ` +
      `log ${((await Deno.stat(join(tmp.path, ".hooktap", "events.jsonl"))).size / 1e6).toFixed(1)} MB, ${
        seconds.toFixed(1)
      } s`,
  );
});
