import assert from "node:assert/strict";
import { buildEvent, decodeBody, eventLine } from "../src/event/record.ts";
import { encodeLine, keepBodyBytes, LineBuffer } from "./record_line_encoder.ts";
import { createHandler } from "../src/receiver/handler.ts";
import { openEventWriter } from "../src/store/write/writer.ts";
import { storePaths } from "../src/store/paths.ts";
import { validateConfig } from "../src/config/validate.ts";
import {
  assertSameBytes,
  decoder,
  encoder,
  lineBatcherContract,
  plainRecord,
  recordCorpus,
  send,
} from "../tests/_record_corpus.ts";

// The shipped encoder's batch tests (src/event/record_line_test.ts), the body's bytes handed over every other batch.
lineBatcherContract({
  LineBuffer,
  prepare: (event, body, round) => void (round % 2 === 0 && keepBodyBytes(event, body)),
});

Deno.test("encodeLine() writes the bytes of JSON.stringify(record) + newline for 6,000 generated records", () => {
  for (const seed of [1, 2, 3]) {
    const next = recordCorpus(seed);
    for (let i = 0; i < 2000; i++) {
      const { event, body } = next();
      const expected = encoder.encode(JSON.stringify(event) + "\n");
      assert.equal(eventLine(event), JSON.stringify(event) + "\n");
      // Without the body's bytes (a copy the receiver did not hand over), then with them.
      assertSameBytes(encodeLine(event), expected, `seed ${seed} record ${i}, from the text`);
      keepBodyBytes(event, body);
      assertSameBytes(encodeLine(event), expected, `seed ${seed} record ${i}, from the bytes`);
    }
  }
});

Deno.test("the body's bytes serve one line only, and only for the record they were decoded into", () => {
  const body = encoder.encode('{"a":"\u00e9\\n"}');
  const event = plainRecord(body);
  keepBodyBytes(event, body);
  // Changed since (never done by hooktap, but then the text is what counts): the bytes are not used.
  event.body = "changed";
  event.bodySize = 7;
  assert.equal(decoder.decode(encodeLine(event)), eventLine(event));
  // Bytes of another size than the record's body are refused when handed over.
  const other = { ...event, body: "ok", bodySize: 2 };
  keepBodyBytes(other, encoder.encode("nope"));
  assert.equal(decoder.decode(encodeLine(other)), eventLine(other));
  // A base64 body is never taken from bytes.
  const binary = buildEvent({ ...event, receivedAt: new Date(0), body: new Uint8Array([0xff]) });
  keepBodyBytes(binary, new Uint8Array([0xff]));
  assert.equal(decoder.decode(encodeLine(binary)), eventLine(binary));
});

Deno.test("records the receiver made from real requests: the candidate writes the log's bytes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_record_line_" });
  try {
    const writer = await openEventWriter(storePaths(`${dir}/.hooktap`), { sync: false });
    const candidate = new LineBuffer();
    const { endpoints } = validateConfig({
      port: 0,
      endpoints: [{ name: "hook", path: "/hook", method: "POST" }],
    }, null);
    let appended = 0;
    const handler = createHandler({
      endpoints,
      // Each record as the receiver hands it to the store: the candidate encodes it (from the body's bytes, as
      // the receiver would hand them over), the writer stores it as hooktap does.
      sink: {
        append: (event) => {
          keepBodyBytes(event, decodeBody(event));
          candidate.add(event);
          appended++;
          return writer.append(event);
        },
      },
    });
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
    try {
      const next = recordCorpus(11);
      let sent = 0;
      for (let round = 0; round < 20; round++) {
        // Ten at a time, so that batches of several lines form.
        const statuses = await Promise.all(
          Array.from({ length: 10 }, () => send(server.addr.port, next.request())),
        );
        for (const status of statuses) assert.match(status, /^HTTP\/1\.1 200/);
        sent += statuses.length;
      }
      assert.equal(appended, sent);
    } finally {
      await server.shutdown();
      await writer.close();
    }
    const log = await Deno.readFile(`${dir}/.hooktap/events.jsonl`);
    assertSameBytes(candidate.take(), log, "the candidate's batch against events.jsonl");
    // Every body shape went through: base64, utf8 with a body, empty, latin1 header bytes.
    const lines = decoder.decode(log);
    assert.ok(lines.includes('"bodyEncoding":"base64"') && lines.includes('"bodySize":0,'));
    assert.match(lines, /[\u0080-\u00ff]/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
