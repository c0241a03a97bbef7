import assert from "node:assert/strict";
import { BodyCutOffError, BodyTooLargeError, BodyUnreadableError } from "./body.ts";
import { bodyErrorAnswer, type BodyErrorContext } from "./body_answer.ts";
import { BodyBudgetError } from "./budget.ts";
import { mustClose } from "./closing.ts";
import { BodyStalledError } from "./stall.ts";

const dev: BodyErrorContext = {
  server: "hooktap",
  taker: "this endpoint",
  maxBodySize: 4096,
  maxBodySetting: "maxBodySize in hooktap.config.ts",
  inFlight: () => "the bound of bytes in flight",
  method: "GET",
  unreadableFix: "Start with HOOKTAP_STACK=node.",
};
const hub: BodyErrorContext = {
  server: "the hub",
  taker: "this hub",
  maxBodySize: 10 * 1024 * 1024,
  maxBodySetting: "hub serve --max-body-size",
  inFlight: () => "hub serve --max-bytes-in-flight",
  method: "POST",
};

Deno.test("body answer: one wording for dev and the hub, each naming its own setting", async () => {
  const cases: [unknown, number, RegExp, RegExp, Record<string, string>][] = [
    [
      new BodyTooLargeError(1),
      413,
      /^Request body too large: this endpoint accepts at most 4 KiB\. Raise maxBodySize in hooktap\.config\.ts to accept more\. Nothing was stored\.$/,
      /^Request body too large: this hub accepts at most 10 MiB\. Raise hub serve --max-body-size to accept more\. Nothing was stored\.$/,
      { connection: "close" },
    ],
    [
      new BodyStalledError(30_000),
      408,
      /^Request timeout: no body data was read for 30 s\. Nothing was stored\.$/,
      /^Request timeout: no body data was read for 30 s\. Nothing was stored\.$/,
      { connection: "close" },
    ],
    [
      new BodyBudgetError(1),
      503,
      /^hooktap is busy: too many bodies arriving at once \(the bound of bytes in flight\)\. .*retry in a moment\.$/,
      /^The hub is busy: .*\(hub serve --max-bytes-in-flight\)\. Nothing was stored; retry in a moment\.$/,
      { connection: "close", "retry-after": "2" },
    ],
    [
      new BodyCutOffError(),
      503,
      /^hooktap is shutting down: hooktap stopped while the body was still arriving\. Nothing was stored/,
      /^The hub is shutting down: the hub stopped while/,
      { connection: "close", "retry-after": "5" },
    ],
    [
      new BodyUnreadableError(),
      501,
      /^Not implemented: this server cannot read the body of a GET request .* Start with HOOKTAP_STACK=node\.$/,
      /^Not implemented: this server cannot read the body of a POST request .*Nothing was stored\.$/,
      { connection: "close" },
    ],
    [
      new Error("invalid HTTP/1 request: Invalid"), // Deno.serve's, for a chunk extension over hyper's limit
      400,
      /^Bad request: the HTTP parser refused the body's framing \(.*\)\. Nothing was stored\.$/,
      /^Bad request: the HTTP parser refused the body's framing/,
      { connection: "close" },
    ],
    [
      new Error("reset"),
      400,
      /^Bad request: the request body could not be read \(client disconnected\?\)\. Nothing was stored\.$/,
      /^Bad request: the request body could not be read/,
      {},
    ],
  ];
  for (const [error, status, devText, hubText, headers] of cases) {
    for (const [context, wording] of [[dev, devText], [hub, hubText]] as const) {
      const answer = bodyErrorAnswer(error, context);
      assert.equal(answer.status, status, String(error));
      assert.equal(answer.response.status, status);
      assert.match(await answer.response.text(), wording);
      assert.equal(answer.response.headers.get("content-type"), "text/plain; charset=utf-8");
      for (const [name, value] of Object.entries(headers)) {
        assert.equal(answer.response.headers.get(name), value);
      }
      assert.equal(answer.cutOff, error instanceof BodyCutOffError ? true : undefined);
    }
  }
});

Deno.test("body answer: a 413 whose rest was drained or left to the sender goes out whole; a given-up one closes", () => {
  for (const rest of ["drained", "left", "given up"] as const) {
    const { status, response } = bodyErrorAnswer(new BodyTooLargeError(4096, rest), dev);
    assert.equal(status, 413);
    assert.equal(response.headers.get("connection"), "close");
    assert.equal(mustClose(response), rest === "given up", rest);
  }
});
