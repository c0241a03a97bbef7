import assert from "node:assert/strict";
import { createRateLimiter, limitsFromEnv } from "./limits.ts";

Deno.test("hub limits: the rate limiter passes a minute's burst, then asks to wait, then refills", () => {
  let t = 0;
  const rate = createRateLimiter(60, () => t);
  for (let i = 0; i < 60; i++) assert.equal(rate.take("c"), undefined);
  assert.equal(rate.take("c"), 1);
  assert.equal(rate.take("other"), undefined, "each channel has its own bucket");
  t += 1000;
  assert.equal(rate.take("c"), undefined);
  assert.equal(createRateLimiter(0).take("c"), undefined, "0 = off");
});

Deno.test("hub limits: HOOKTAP_HUB_LIMITS is read as JSON and a bad field is named", () => {
  assert.deepEqual(limitsFromEnv('{"retentionMs": 1000, "ratePerMinute": 0}'), {
    retentionMs: 1000,
    ratePerMinute: 0,
  });
  assert.deepEqual(limitsFromEnv(undefined), {});
  assert.throws(() => limitsFromEnv('{"retention": 1}'), /unknown limit "retention"/);
  assert.throws(() => limitsFromEnv('{"maxClients": 0}'), /maxClients must be a positive number/);
  assert.throws(() => limitsFromEnv('{"maxBodySize": 67108865}'), /maxBodySize must be at most 67108864/);
  assert.deepEqual(limitsFromEnv('{"maxBodySize": 67108864}'), { maxBodySize: 67108864 });
});
