/**
 * `trigger --json` for a sender that signs with hooktap's key pair carries
 * the public key the app must trust (the text line that says it is not
 * printed under --json): each official library verifies the delivery with
 * that key. The CLI as a subprocess, a loopback app.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { EventWebhook } from "@sendgrid/eventwebhook";
import { verifyKey } from "discord-interactions";
import { runCli, withTmpDir } from "../_helpers.ts";

Deno.test("trigger --json gives hooktap's public key, and the official libraries verify with it", async () => {
  await using tmp = await withTmpDir();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => Response.json({ type: 4, data: { content: "ok" } }), // an interaction response (Discord)
  );
  try {
    const url = `http://127.0.0.1:${server.addr.port}/`;
    const header = (d: { headers: [string, string][] }, name: string) =>
      d.headers.find(([k]) => k.toLowerCase() === name)![1];

    const discord = await runCli(["trigger", "discord", "APPLICATION_COMMAND", "--to", url, "--json"], {
      cwd: tmp.path,
    });
    assert.equal(discord.code, 0, discord.stderr);
    const d = JSON.parse(discord.stdout.trim());
    assert.match(d.publicKey, /^[0-9a-f]{64}$/);
    assert.equal(
      await verifyKey(
        d.body,
        header(d, "x-signature-ed25519"),
        header(d, "x-signature-timestamp"),
        d.publicKey,
      ),
      true,
    );

    const sendgrid = await runCli(["trigger", "sendgrid", "open", "--to", url, "--json"], { cwd: tmp.path });
    assert.equal(sendgrid.code, 0, sendgrid.stderr);
    const s = JSON.parse(sendgrid.stdout.trim());
    const lib = new EventWebhook();
    assert.equal(
      lib.verifySignature(
        lib.convertPublicKeyToECDSA(s.publicKey),
        s.body,
        header(s, "x-twilio-email-event-webhook-signature"),
        header(s, "x-twilio-email-event-webhook-timestamp"),
      ),
      true,
    );

    const sw = await runCli(["trigger", "standard-webhooks", "user.created", "--to", url, "--json"], {
      cwd: tmp.path,
    });
    assert.equal(sw.code, 0, sw.stderr);
    const w = JSON.parse(sw.stdout.trim());
    assert.match(w.publicKey, /^whpk_/);
    // The Standard Webhooks spec's v1a: Ed25519 over "id.timestamp.body", the key raw after whpk_.
    const raw = Buffer.from(w.publicKey.slice(5), "base64");
    const key = await crypto.subtle.importKey("raw", raw, "Ed25519", false, ["verify"]);
    const [version, signature] = header(w, "webhook-signature").split(",");
    assert.equal(version, "v1a");
    const signed = new TextEncoder().encode(
      `${header(w, "webhook-id")}.${header(w, "webhook-timestamp")}.${w.body}`,
    );
    assert.equal(await crypto.subtle.verify("Ed25519", key, Buffer.from(signature!, "base64"), signed), true);

    // A shared-secret sender has no key to trust.
    const stripe = await runCli([
      "trigger",
      "stripe",
      "invoice.paid",
      "--to",
      url,
      "--secret",
      "whsec_x",
      "--json",
    ], {
      cwd: tmp.path,
    });
    assert.equal(JSON.parse(stripe.stdout.trim()).publicKey, undefined);
  } finally {
    await server.shutdown();
  }
});
