import assert from "node:assert/strict";
import { decodeBody, eventLine, parseEventLine } from "./record.ts";
import { encodeLine, LineBuffer } from "./record_line.ts";
import { createHandler } from "../receiver/handler.ts";
import { openEventWriter } from "../store/write/writer.ts";
import { storePaths } from "../store/paths.ts";
import { validateConfig } from "../config/validate.ts";
import { PROVIDERS } from "../providers/registry.ts";
import {
  assertSameBytes,
  decoder,
  encoder,
  lineBatcherContract,
  recordCorpus,
  send,
} from "../../tests/_record_corpus.ts";

// The batch tests the bench's candidate encoder passes too (bench/record_line_test.ts).
lineBatcherContract({ LineBuffer });

Deno.test("encodeLine() writes the bytes of JSON.stringify(record) + newline for 6,000 generated records", () => {
  for (const seed of [1, 2, 3]) {
    const next = recordCorpus(seed);
    for (let i = 0; i < 2000; i++) {
      const { event, body } = next();
      const expected = encoder.encode(JSON.stringify(event) + "\n");
      assert.equal(eventLine(event), JSON.stringify(event) + "\n");
      assertSameBytes(encodeLine(event), expected, `seed ${seed} record ${i}`);
      // The line reads back as the record, its body as the bytes it was built from.
      assert.deepEqual(decodeBody(parseEventLine(decoder.decode(expected))!), body);
    }
  }
});

Deno.test("the corpus holds the shapes it is meant to", () => {
  const next = recordCorpus(1);
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const { event: e } = next();
    seen.add(e.bodyEncoding);
    if (e.bodySize === 0) seen.add("empty");
    if (e.v === 2) seen.add("v2");
    if (e.verdict) seen.add(e.verdict.status);
    if (e.trigger) seen.add("trigger");
    if (e.response) seen.add("response");
    if (e.query !== "") seen.add("query");
    if (e.body.length > 65_536) seen.add("large");
    if (e.body.charCodeAt(0) === 0xfeff) seen.add("bom");
    if (/[\u{10000}-\u{10FFFF}]/u.test(e.body)) seen.add("astral");
    if ([...e.body].some((c) => c < " ")) seen.add("control");
    if (e.headers.some(([, v]) => /[\x80-\xff]/.test(v))) seen.add("latin1");
    if (e.headers.some(([, v]) => v === "")) seen.add("empty header");
    const names = e.headers.map(([k]) => k.toLowerCase());
    if (new Set(names).size < names.length) seen.add("repeated header");
  }
  const shapes = [
    "utf8",
    "base64",
    "empty",
    "v2",
    "valid",
    "invalid",
    "expired",
    "unsigned",
    "no-secret",
    "trigger",
    "response",
    "query",
    "large",
    "bom",
    "astral",
    "control",
    "latin1",
    "empty header",
    "repeated header",
  ];
  for (const shape of shapes) assert.ok(seen.has(shape), `no record of shape ${shape}`);
});

Deno.test("records the receiver made from real requests, every provider's verdict among them: the log holds JSON.stringify's bytes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_record_line_" });
  try {
    const writer = await openEventWriter(storePaths(`${dir}/.hooktap`), { sync: false });
    // One endpoint per provider (with a secret for half of them: "no-secret", "unsigned" and "invalid" verdicts
    // with each provider's own reasons), and one that detects the sender.
    const providers = PROVIDERS.map((p) => p.name);
    const { endpoints } = validateConfig({
      port: 0,
      endpoints: [
        { name: "hook", path: "/hook", method: "POST" },
        ...providers.map((name, i) => ({
          name: `p-${name}`,
          path: `/p/${name}`,
          method: "POST",
          provider: name,
          ...(i % 2 === 0 ? { secret: "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=" } : {}),
        })),
      ],
    }, null);
    const expected: string[] = [];
    const seen = new Set<string>();
    const handler = createHandler({
      endpoints,
      // Each record as the receiver hands it to the store: its reference line, then the writer stores it.
      sink: {
        append: (event) => {
          expected.push(eventLine(event));
          if (event.verdict !== undefined) seen.add(event.endpoint);
          return writer.append(event);
        },
      },
    });
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
    try {
      const next = recordCorpus(11);
      const paths = ["/hook", ...providers.map((name) => `/p/${name}`)];
      for (let round = 0; round < 20; round++) {
        // Ten at a time, so that batches of several lines form.
        const statuses = await Promise.all(
          Array.from(
            { length: 10 },
            (_, i) => send(server.addr.port, next.request(), paths[(round * 10 + i) % paths.length]),
          ),
        );
        for (const status of statuses) assert.match(status, /^HTTP\/1\.1 (200|401)/);
      }
    } finally {
      await server.shutdown();
      await writer.close();
    }
    const log = await Deno.readFile(`${dir}/.hooktap/events.jsonl`);
    assertSameBytes(
      log,
      encoder.encode(expected.join("")),
      "events.jsonl against JSON.stringify of each record",
    );
    // Every body shape went through: base64, utf8 with a body, empty, latin1 header bytes; every provider.
    const lines = decoder.decode(log);
    assert.ok(lines.includes('"bodyEncoding":"base64"') && lines.includes('"bodySize":0,'));
    assert.match(lines, /[\u0080-\u00ff]/);
    for (const name of providers) {
      assert.ok(seen.has(`p-${name}`), `no record with the verdict of ${name}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
