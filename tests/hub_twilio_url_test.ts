/**
 * Twilio signs the URL it called: through a hub, the channel's URL. `dev --hub` judges the signature against
 * that URL (the hub's host, `/c/<channel>` and the path), not against the path alone.
 */
import assert from "node:assert/strict";
import twilio from "twilio";
import { readEvents, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { until } from "./_app.ts";
import type { CapturedEvent } from "../src/event/record.ts";
import { createChannel, send, startHub } from "./_hub.ts";

Deno.test("hub: a Twilio callback signed over the channel URL is valid at dev", async () => {
  await using tmp = await withTmpDir();
  const token = "twilio-auth-token";
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "sms", path: "/sms", method: "POST", ` +
      `provider: "twilio", secret: "${token}" }] };\n`,
  );
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const url = `${channel.url}/sms`;
  const params = { MessageSid: "SM0123", MessageStatus: "delivered", To: "+15005550006" };
  // Twilio's own library makes the signature, over the URL the sender is given: the channel's.
  const signature = twilio.getExpectedTwilioSignature(token, url, params);
  assert.ok(twilio.validateRequest(token, signature, url, params));
  const status = await send(url, new URLSearchParams(params).toString(), {
    "content-type": "application/x-www-form-urlencoded",
    "X-Twilio-Signature": signature,
  });
  assert.equal(status, 200);
  await using dev = await startDev(tmp.path, ["--hub", channel.url, "--hub-token", channel.token]);
  await until(async () => (await readEvents(tmp.path)).length === 1, "the event fetched from the hub");
  const [event] = await readEvents(tmp.path) as unknown as CapturedEvent[];
  assert.equal(event!.provider, "twilio");
  assert.equal(event!.verdict?.status, "valid", JSON.stringify(event!.verdict));
  assert.doesNotMatch(dev.stdout(), /invalid/);
});
