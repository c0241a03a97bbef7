/**
 * `-H` on a signature header does what `trigger --help` says (an empty value
 * removes the header, another value replaces it) instead of being overwritten
 * by the signer, and the line says so. Judged by the official libraries:
 * Stripe's `constructEventAsync` and @octokit/webhooks. The CLI as a subprocess.
 */
import assert from "node:assert/strict";
import { Webhooks } from "@octokit/webhooks";
import Stripe from "stripe";
import { runCli, withTmpDir } from "../_helpers.ts";

const SECRET = "whsec_signature_header";
const stripe = new Stripe("sk_test_hooktap");
const github = new Webhooks({ secret: SECRET });

Deno.test("-H removes or replaces a signature header after signing; the libraries refuse, the line says why", async () => {
  await using tmp = await withTmpDir();
  const seen: { signature: string | null; error?: string }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = new URL(request.url).pathname;
    const text = await request.text();
    const h = (n: string) => request.headers.get(n);
    try {
      if (path === "/stripe") {
        seen.push({ signature: h("stripe-signature") });
        await stripe.webhooks.constructEventAsync(text, h("stripe-signature") ?? "", SECRET);
      } else {
        seen.push({ signature: h("x-hub-signature-256") });
        await github.verifyAndReceive({
          id: h("x-github-delivery") ?? "",
          name: "push",
          payload: text,
          signature: h("x-hub-signature-256") ?? "",
        });
      }
      return new Response("ok");
    } catch (error) {
      seen.at(-1)!.error = String(error);
      return new Response("refused", { status: 400 });
    }
  });
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const run = (args: string[]) => runCli(["trigger", ...args, "--secret", SECRET], { cwd: tmp.path });

    const removed = await run([
      "stripe",
      "invoice.paid",
      "--to",
      `${base}/stripe`,
      "-H",
      "Stripe-Signature:",
    ]);
    assert.equal(removed.code, 1, removed.stdout + removed.stderr);
    assert.match(removed.stdout, /signed with the secret, then Stripe-Signature removed by -H/);
    assert.equal(seen.at(-1)!.signature, null);
    assert.match(seen.at(-1)!.error!, /No stripe-signature header/);

    const replaced = await run([
      "stripe",
      "invoice.paid",
      "--to",
      `${base}/stripe`,
      "-H",
      "Stripe-Signature: t=1,v1=ab",
    ]);
    assert.equal(replaced.code, 1);
    assert.match(replaced.stdout, /then Stripe-Signature set by -H/);
    assert.equal(seen.at(-1)!.signature, "t=1,v1=ab");

    const gh = await run([
      "github",
      "push",
      "--to",
      `${base}/github`,
      "-H",
      "X-Hub-Signature-256: sha256=00",
    ]);
    assert.equal(gh.code, 1);
    assert.equal(seen.at(-1)!.signature, "sha256=00");
    assert.match(seen.at(-1)!.error!, /signature does not match/);

    // Any other -H is applied before signing: the delivery still verifies.
    const other = await run(["stripe", "invoice.paid", "--to", `${base}/stripe`, "-H", "X-Extra: 1"]);
    assert.equal(other.code, 0, other.stdout + other.stderr + JSON.stringify(seen.at(-1)));
    assert.doesNotMatch(other.stdout, /by -H/);
    assert.equal(seen.at(-1)!.error, undefined);
  } finally {
    await server.shutdown();
  }
});
