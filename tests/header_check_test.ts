/**
 * dev's start-up check that headers are stored as they arrived: through both
 * real stacks it passes; on a runtime that hides the raw header list (played
 * by a preload script that hides the runtime-internal symbol) dev refuses to
 * start with the reason and the workaround, and the workaround works.
 */
import assert from "node:assert/strict";
import { CHECK_HEADERS, checkRawHeaders, keepsRawHeaders } from "../src/receiver/header_check.ts";
import { requestHeaders } from "../src/receiver/headers.ts";
import { withProbe } from "../src/receiver/probe.ts";
import { listen } from "../src/server/listen.ts";
import { LEAST_PRIVILEGE, readEvents, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

/** Plays a runtime whose Headers no longer expose the raw list hooktap reads. */
/** A runtime without the raw list: both ways to it (the inner request, the Headers' target) hidden. */
const HIDE_RAW_LIST = `const own = Object.getOwnPropertySymbols;
Object.getOwnPropertySymbols = (o) => own(o).filter((s) => s.description !== "header target" && s.description !== "request");
`;

async function rawRequest(port: number, head: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(head));
  let text = "";
  for await (const chunk of conn.readable) text += new TextDecoder().decode(chunk);
  return text;
}

Deno.test("keepsRawHeaders() wants the probe's headers in order, case and repeats kept", () => {
  assert.equal(keepsRawHeaders([["Host", "x"], ...CHECK_HEADERS, ["Connection", "close"]]), true);
  assert.equal(
    keepsRawHeaders([["x-hooktap-check", "first, second"], ["x-hooktap-order", "between"]]),
    false,
  );
  assert.equal(keepsRawHeaders(CHECK_HEADERS.map(([n, v]) => [n.toLowerCase(), v])), false);
  assert.equal(keepsRawHeaders([]), false);
});

for (const stack of ["deno", "node"] as const) {
  Deno.test(`the start-up check passes through the real ${stack} stack`, async () => {
    const server = await listen(withProbe(() => Promise.resolve(new Response("no")), "test-run"), {
      hostname: "127.0.0.1",
      port: 0,
      stack,
    });
    try {
      await checkRawHeaders(server.hostname, server.port, { stack });
    } finally {
      await server.shutdown();
      await server.finished;
    }
  });
}

Deno.test("a GET to the probe's path without the probe header reaches the handler with its raw headers", async () => {
  const server = await listen(
    withProbe((request) => Promise.resolve(Response.json(requestHeaders(request))), "test-run"),
    {
      hostname: "127.0.0.1",
      port: 0,
      stack: "deno",
    },
  );
  try {
    const answer = await rawRequest(
      server.port,
      "GET /.hooktap/probe HTTP/1.1\r\nHost: x\r\nX-A: 1\r\nx-b: 2\r\nx-A: 3\r\nConnection: close\r\n\r\n",
    );
    const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
    assert.deepEqual(body.slice(1, 4), [["X-A", "1"], ["x-b", "2"], ["x-A", "3"]]);
  } finally {
    await server.shutdown();
    await server.finished;
  }
});

Deno.test("dev refuses to start, with the reason and the workaround, when the raw header list is gone", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hide.js", HIDE_RAW_LIST);
  const { code, stderr } = await runCli(["dev", "--port", "0", "--no-ui"], {
    cwd: tmp.path,
    permissions: [...LEAST_PRIVILEGE, "--preload=./hide.js"],
  });
  assert.equal(code, 1, stderr);
  assert.match(stderr, /hooktap dev will not start/);
  assert.match(stderr, /header names lower-cased and repeats merged/);
  assert.match(stderr, /HOOKTAP_STACK=node/);
  assert.doesNotMatch(stderr, /listening on/);
  assert.deepEqual(await readEvents(tmp.path).catch(() => []), []);
});

Deno.test("the workaround, HOOKTAP_STACK=node, starts and stores headers as they arrived", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hide.js", HIDE_RAW_LIST);
  await using dev = await startDev(tmp.path, ["--no-ui"], {
    permissions: [...LEAST_PRIVILEGE, "--allow-env=HOOKTAP_STACK", "--preload=./hide.js"],
    env: { HOOKTAP_STACK: "node" },
  });
  const answer = await rawRequest(
    dev.port,
    "POST /webhook HTTP/1.1\r\nHost: x\r\nX-A: 1\r\nx-b: 2\r\nx-A: 3\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
  );
  assert.match(answer, /^HTTP\/1\.1 200/);
  const [event] = await readEvents(tmp.path);
  assert.deepEqual((event!.headers as string[][]).slice(1, 4), [["X-A", "1"], ["x-b", "2"], ["x-A", "3"]]);
});

Deno.test("HOOKTAP_STACK naming neither stack is refused with a usage error, before anything listens", async () => {
  await using tmp = await withTmpDir();
  const { code, stderr } = await runCli(["dev", "--port", "0", "--no-ui"], {
    cwd: tmp.path,
    permissions: [...LEAST_PRIVILEGE, "--allow-env=HOOKTAP_STACK"],
    env: { HOOKTAP_STACK: "nodejs" },
  });
  assert.equal(code, 2, stderr);
  assert.match(
    stderr,
    /HOOKTAP_STACK must be "deno" \(Deno.serve, the default\) or "node" \(node:http\), got "nodejs"/,
  );
  assert.doesNotMatch(stderr, /listening on/);
});
