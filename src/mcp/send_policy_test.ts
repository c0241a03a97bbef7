import assert from "node:assert/strict";
import { validateConfig } from "../config/validate.ts";
import { UsageError } from "../errors.ts";
import { checkSendTo, isLoopback, refusal } from "./send_policy.ts";

const config = validateConfig({
  port: 0,
  endpoints: [
    { name: "gh", path: "/gh", method: "POST", forward: "https://app.internal.example:8443/hooks/:provider" },
    { name: "st", path: "/st", method: "POST", forward: [{ name: "b", to: "http://10.0.0.5:3000/x" }] },
  ],
  mcp: { allowSendTo: ["https://staging.example.com", "https://other.example.com/hooks"] },
}, "/p/hooktap.config.ts");

Deno.test("send policy: loopback, the forward targets' origins and allowSendTo pass; the rest is refused", () => {
  for (
    const ok of ["http://127.0.0.1:3000/x", "http://localhost/x", "http://[::1]:8080/", "http://a.localhost/"]
  ) {
    assert.equal(refusal(new URL(ok), null), undefined, ok);
  }
  for (
    const ok of [
      "https://app.internal.example:8443/other",
      "http://10.0.0.5:3000/y",
      "https://staging.example.com/any/path",
      "https://other.example.com/hooks",
      "https://other.example.com/hooks/github",
    ]
  ) assert.equal(refusal(new URL(ok), config), undefined, ok);
  for (
    const bad of [
      "https://attacker.example/",
      "https://app.internal.example/", // another port
      "http://staging.example.com/", // another scheme
      "https://other.example.com/hooksx",
      "https://other.example.com/",
      "http://127.0.0.1.attacker.example/",
    ]
  ) assert.match(refusal(new URL(bad), config) ?? "", /allowSendTo/, bad);
  assert.ok(isLoopback("127.8.9.10"));
  assert.ok(!isLoopback("10.0.0.1"));
});

Deno.test("send policy: checkSendTo names the origin and the config line that allows it", () => {
  assert.throws(
    () => checkSendTo("https://evil.example/x", config),
    (e: unknown) =>
      e instanceof UsageError && /Refused to send to https:\/\/evil\.example/.test(e.message) &&
      e.message.includes('mcp: { allowSendTo: ["https://evil.example"] }') &&
      e.message.includes("/p/hooktap.config.ts"),
  );
  assert.throws(() => checkSendTo("ftp://x/", null), /http:\/\/ or https:\/\//);
  assert.throws(() => checkSendTo("nope", null), /must be a URL/);
  assert.equal(checkSendTo("http://127.0.0.1:1/a", null).port, "1");
});

Deno.test("send policy: a URL with a user name or password is refused, and the password never repeated", () => {
  let error: unknown;
  try {
    checkSendTo("http://me:hunter2@127.0.0.1:3000/hook", null);
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof UsageError, String(error));
  assert.match(
    error.message,
    /^to holds a user name or password, which hooktap does not send: give http:\/\/127\.0\.0\.1:3000\/hook/,
  );
  assert.match(error.message, /"Authorization: Basic <base64 of user:password>"/);
  assert.doesNotMatch(error.message, /hunter2/);
});
