import assert from "node:assert/strict";
import { buildEvent, type CapturedEvent, eventLine } from "../../event/record.ts";
import { createIdFactory } from "../../event/id.ts";
import { compileFilter, type EventFilter } from "../../query/filter.ts";
import { countMatches, scanBackward, scanForward } from "./scan.ts";
import { tail } from "./tail.ts";
import { countingReader, logText, tempStore } from "../../../tests/_store_fixture.ts";

const enc = new TextEncoder();
const newId = createIdFactory();
const START = Date.parse("2024-05-01T10:00:00Z");

/** 600 events of mixed shapes: JSON with nested fields, text with escapes, binary bodies. */
const EVENTS: CapturedEvent[] = Array.from({ length: 600 }, (_, i) => {
  const at = new Date(START + i * 1000);
  const body = i % 7 === 0
    ? new Uint8Array([0xff, i % 256, ...enc.encode(`bin_${i}`), 0x80])
    : i % 5 === 0
    ? enc.encode(`plain "text" ${i}\nwith café`)
    : enc.encode(
      JSON.stringify({ action: i % 2 ? "opened" : "closed", data: { object: { id: `cus_${i}` } } }),
    );
  return buildEvent({
    id: newId(at),
    endpoint: i % 3 === 0 ? "stripe" : "github",
    receivedAt: at,
    method: i % 4 === 0 ? "PUT" : "POST",
    path: "/hook",
    query: "",
    headers: [["X-GitHub-Event", i % 2 ? "push" : "ping"], ["content-type", "application/json"]],
    body,
    remoteAddr: "127.0.0.1",
  });
});

const FILTERS: EventFilter[] = [
  {},
  { grep: "cus_42" },
  { grep: "CAFÉ" },
  { grep: "café" },
  { grep: "bin_7" },
  { where: ["action=opened"], endpoint: "github" },
  { where: ["data.object.id=cus_101"] },
  { header: ["x-github-event=ping"], method: "put" },
  { since: new Date(START + 100_000), until: new Date(START + 200_000), grep: "opened" },
  { endpoint: "stripe" },
];

for (const filter of FILTERS) {
  Deno.test(`scans forwards, backwards and count agree with the exact test: ${JSON.stringify(filter)}`, async () => {
    await using store = await tempStore(logText(EVENTS));
    using reader = await countingReader(store);
    const f = compileFilter(filter);
    const want = EVENTS.filter((e) => f.event(e)).map((e) => e.id);
    // A tiny chunk size puts lines across chunk edges everywhere.
    const fwd: string[] = [];
    for await (const m of scanForward(reader, f, { chunkSize: 1000 })) fwd.push(m.event.id);
    assert.deepEqual(fwd, want);
    const back: string[] = [];
    for await (const m of scanBackward(reader, f, { chunkSize: 1000 })) back.push(m.event.id);
    assert.deepEqual(back, [...want].reverse());
    // Whole chunks, decoded in pieces from their end.
    const wide: string[] = [];
    for await (const m of scanBackward(reader, f)) wide.push(m.event.id);
    assert.deepEqual(wide, [...want].reverse());
    assert.equal(await countMatches(reader, f, { chunkSize: 777 }), want.length);
  });
}

Deno.test("a scan's line text is the stored line, byte for byte", async () => {
  await using store = await tempStore(logText(EVENTS));
  using reader = await countingReader(store);
  const lines: string[] = [];
  for await (const m of scanForward(reader, compileFilter({ grep: "café" }))) lines.push(m.line + "\n");
  assert.ok(lines.length > 0);
  const all = await Deno.readTextFile(store.events);
  for (const l of lines) assert.ok(all.includes(l));
});

Deno.test("tail() with --grep finds the newest matches reading only the end of a big log", async () => {
  await using store = await tempStore(logText(EVENTS));
  using reader = await countingReader(store);
  const got = await tail(reader, { limit: 2, grep: "opened" });
  const want = EVENTS.filter((e) => e.body.includes("opened")).slice(-2).map((e) => e.id);
  assert.deepEqual(got.map((e) => e.id), want);
  assert.ok(reader.bytesRead() <= 64 * 1024, `read ${reader.bytesRead()} bytes`);
});

Deno.test("scans skip a torn last line and damaged lines, counting them", async () => {
  const lines = EVENTS.slice(0, 20).map(eventLine);
  lines.splice(3, 0, '{"v":1,"id":"evt_20240501_01HWXYZ0000000000000000000","endpoint":"x",broken\n');
  await using store = await tempStore(lines.join("") + eventLine(EVENTS[20]!).slice(0, 50));
  using reader = await countingReader(store);
  const f = compileFilter({ where: ["action"] });
  assert.equal(await countMatches(reader, f), EVENTS.slice(0, 20).filter((e) => f.event(e)).length);
  assert.equal(reader.skipped, 2);
});

Deno.test("count decides --grep on the line text exactly as the parsed test does, escapes and keys included", async () => {
  const tricky = [
    [
      "/hook/query",
      "path=1&q=\u001f",
      [["X-Name", 'say "query" \\ n'], ["query", "v"]],
      'a\nb "q" \\u001f \u001f ∑ path',
    ],
    ["/p", "", [["n", "N"]], "\\n\\\\n\nnn"],
    ["/x", "query=1", [], ""],
    ["/x", "", [], "\u001f\nz\\"], // "n", "u001f" and "\\" only inside escapes
  ] as const;
  const events = tricky.map(([path, query, headers, body], i) =>
    buildEvent({
      id: newId(new Date(START + i * 1000)),
      endpoint: "e",
      receivedAt: new Date(START + i * 1000),
      method: "POST",
      path,
      query,
      headers: headers.map(([n, v]) => [n, v] as [string, string]),
      body: enc.encode(body),
      remoteAddr: "127.0.0.1",
    })
  );
  await using store = await tempStore(logText(events));
  using reader = await countingReader(store);
  const needles = [
    "query",
    "path",
    "n",
    "N",
    "u001f",
    "\u001f",
    "\\",
    "\\n",
    "\nb",
    '"q"',
    '"query"',
    "x-name",
    "say",
    "headers",
    "body",
    "/hook",
    "q=",
    "∑",
    "nn",
    "utf8",
    "127.0.0.1",
    "e",
    "POST",
    "1",
  ];
  for (const grep of needles) {
    const f = compileFilter({ grep });
    const want = events.filter((e) => f.event(e)).length;
    assert.equal(await countMatches(reader, f), want, JSON.stringify(grep));
  }
});

Deno.test("scans read lines many times longer than a chunk, both ways", async () => {
  const long = buildEvent({
    id: newId(new Date(START + 10_000_000)),
    endpoint: "github",
    receivedAt: new Date(START + 10_000_000),
    method: "POST",
    path: "/hook",
    query: "",
    headers: [],
    body: enc.encode("y".repeat(50_000) + "needle_z" + "\u0000".repeat(20_000)),
    remoteAddr: "127.0.0.1",
  });
  const events = [...EVENTS.slice(0, 5), long, ...EVENTS.slice(5, 10)].sort((a, b) => a.id < b.id ? -1 : 1);
  await using store = await tempStore(logText(events));
  using reader = await countingReader(store);
  for (const filter of [{}, { grep: "needle_z" }]) {
    const f = compileFilter(filter);
    const want = events.filter((e) => f.event(e)).map((e) => e.id);
    const fwd: string[] = [];
    for await (const m of scanForward(reader, f, { chunkSize: 1000 })) fwd.push(m.event.id);
    const back: string[] = [];
    for await (const m of scanBackward(reader, f, { chunkSize: 1000 })) back.push(m.event.id);
    assert.deepEqual(fwd, want);
    assert.deepEqual(back, [...want].reverse());
  }
});

Deno.test("scanBackward() pages: each match's byte start, an end and a budget find every match once", async () => {
  await using store = await tempStore(logText(EVENTS));
  using reader = await countingReader(store);
  const text = enc.encode(logText(EVENTS));
  for (const filter of [{}, { grep: "café" }, { endpoint: "stripe", method: "put" }]) {
    const f = compileFilter(filter);
    const want = EVENTS.filter((e) => f.event(e)).map((e) => e.id).reverse();
    const got: string[] = [];
    let end: number | undefined = reader.size;
    while (end !== undefined) {
      // A page: at most 7 matches or 3,000 bytes, then the next goes on from where it stopped.
      const scan = scanBackward(reader, f, { end, budget: 3000, chunkSize: 1000 });
      let stop: number | undefined;
      let n = 0;
      for (let step = await scan.next();; step = await scan.next()) {
        if (step.done) {
          stop = step.value;
          break;
        }
        const m = step.value;
        // The start is the line's byte offset (lines with "café" hold two-byte characters).
        assert.equal(
          new TextDecoder().decode(text.subarray(m.start, m.start + enc.encode(m.line).length)),
          m.line,
        );
        got.push(m.event.id);
        if (++n === 7) {
          stop = m.start;
          await scan.return(0);
          break;
        }
      }
      assert.ok(end - stop <= 3000 + 1000, `a page read ${end - stop} bytes`);
      end = stop > 0 ? stop : undefined;
    }
    assert.deepEqual(got, want);
  }
});
