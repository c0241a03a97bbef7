import assert from "node:assert/strict";
import { checkParams, FILTER_PARAMS, FilterError, filterFromQuery } from "./query.ts";

const q = (text: string, now?: Date) => filterFromQuery(new URLSearchParams(text), now);

Deno.test("filterFromQuery() reads the page's query with the CLI's rules", () => {
  const now = new Date("2024-05-01T12:00:00Z");
  assert.deepEqual(
    q("type=issues&verdict=Unsigned&q=Hello&since=2h&until=2024-05-01T11:30:00Z&delivery=failed", now),
    {
      type: "issues",
      verdict: "unsigned",
      grep: "Hello",
      since: new Date("2024-05-01T10:00:00Z"),
      until: new Date("2024-05-01T11:30:00Z"),
      delivery: "failed",
    },
  );
  assert.deepEqual(q("where=action%3Dopened&where=n&header=X-GitHub-Event%3Dpush"), {
    where: ["action=opened", "n"],
    header: ["X-GitHub-Event=push"],
  });
  // Blank values are unset; the search text is kept as typed.
  assert.deepEqual(q("method=post&q=&endpoint=%20&where="), { method: "post" });
  assert.deepEqual(q("q=%20a"), { grep: " a" });
});

Deno.test("filterFromQuery() refuses a bad value, naming the parameter and what it takes", () => {
  const refused = (text: string, message: RegExp) =>
    assert.throws(
      () => q(text),
      (e) => e instanceof FilterError && message.test(e.message) && !/--/.test(e.message),
    );
  refused("since=soon", /^since must be a duration like 10m/);
  refused("until=soon", /^until must be a duration/);
  refused("verdict=none", /^verdict must be one of valid, invalid, expired, unsigned, no-secret/);
  refused("delivery=lost", /^delivery must be one of none, pending, delivered, retrying, failed/);
  refused("where=%3Dx", /^where must look like field=value/);
  refused("header=bad%20name", /^header must look like Name=value/);
});

Deno.test("checkParams() refuses a parameter the route does not read, giving the API's name for a CLI one", () => {
  const check = (text: string, known = FILTER_PARAMS) => checkParams(new URLSearchParams(text), known);
  // Every field of the page's filter form is known, blank or not.
  check("q=&endpoint=&method=&provider=&type=&verdict=&delivery=&where=&header=&since=&until=");
  check("before=10&limit=5", [...FILTER_PARAMS, "before", "limit"]);
  assert.throws(() => check("limit=5"), (e: Error) => {
    assert.ok(e instanceof FilterError);
    assert.equal(
      e.message,
      'Unknown parameter "limit". Known parameters: endpoint, method, provider, type, verdict, delivery, since, ' +
        "until, q, where, header.",
    );
    return true;
  });
  assert.throws(
    () => check("grep=a&has-header=b&filter_method=PUT&undelivered=1&grep=c&toString=1"),
    new RegExp(
      'Unknown parameters "grep" \\(the API\'s is q\\), "has-header" \\(the API\'s is header\\), ' +
        '"filter_method" \\(the API\'s is method\\), "undelivered" \\(the API\'s is delivery=pending or ' +
        'delivery=failed\\), "toString"\\. Known',
    ),
  );
});
