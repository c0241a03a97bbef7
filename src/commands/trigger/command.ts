import { lazyImport } from "../../cli/lazy.ts";
import { defineCommand, defineOptions, duration, integer, path, url } from "../../cli/spec.ts";
import { SEND_OPTIONS } from "../_shared/send_options.ts";

/** Options of `hooktap trigger`. */
export const options = defineOptions({
  list: { description: "list what can be triggered (every provider, or the one named), then exit" },
  to: {
    short: "t",
    kind: url(),
    description: "send straight to this URL (your app) instead of the running `hooktap dev`",
  },
  endpoint: {
    short: "e",
    value: "name",
    description:
      "the dev endpoint to send to, signed with its secret (default: the first one for the provider); with --to, only its secret is used",
    complete: "endpoint",
  },
  secret: { value: "secret", description: "sign with this secret instead of the endpoint's `secret`" },
  signatureUrl: {
    value: "url",
    description: "the URL the signature covers, for schemes that sign it (Twilio); default: where it is sent",
  },
  set: {
    ...SEND_OPTIONS.set,
    value: "[step:]path=value",
    description: "change one field: data.object.amount=5000, in every step, or in one step of a sequence: " +
      "3:data.object.status=open or invoice.paid:data.object.amount_paid=0 (repeatable; signed afresh)",
  },
  setNew: SEND_OPTIONS.setNew,
  unset: {
    ...SEND_OPTIONS.unset,
    value: "[step:]path",
    description:
      "remove one field: data.object.metadata, in every step or in one (STEP: as for --set; repeatable)",
  },
  fixture: {
    kind: path("file"),
    description:
      'send your own steps, in order: a JSON file {"steps": [{"event", "set", "unset", "body"}, ...]}',
  },
  apiVersion: {
    value: "version",
    description:
      "Stripe: shape the payloads for this API version (envelope, and the basil changes before 2025-03-31)",
  },
  bodyFile: { kind: path("file"), description: "send this file's bytes as the body (signed)" },
  header: SEND_OPTIONS.header,
  duplicate: { description: "fault: send each delivery twice, identical (same ids and signature)" },
  outOfOrder: { description: "fault: send a sequence's events shuffled (--seed makes it repeatable)" },
  seed: { kind: integer({ max: 2 ** 31 }), description: "seed of --out-of-order's shuffle" },
  stale: { description: "fault: sign with a timestamp beyond the provider's tolerance" },
  badSignature: { description: "fault: sign with the wrong secret or key" },
  retries: {
    kind: integer({ max: 20 }),
    description: "fault: send each delivery again N times at the provider's retry schedule, in seconds",
  },
  realTime: { description: "with --retries: wait the provider's real delays (minutes to hours)" },
  config: { short: "c", kind: path(), description: "config file holding the endpoints and secrets" },
  timeout: { kind: duration(), description: "longest wait for each answer", default: "30s" },
  json: { description: "print one JSON object per delivery on stdout (with --list: one per entry)" },
});

/** `hooktap trigger`. */
export const trigger = defineCommand({
  name: "trigger",
  description: "Send a provider's event, signed as the provider signs it, to `hooktap dev` or your app",
  arguments: [
    {
      name: "provider",
      description: "github, stripe, slack, ... (see --list)",
      complete: "trigger-provider",
    },
    {
      name: "event",
      description: "an event (push, invoice.paid) or a sequence (checkout); none with --fixture",
      complete: "trigger-event",
    },
  ],
  options,
  after:
    "\nBy default the delivery goes to the `hooktap dev` running in this directory, at the first endpoint\n" +
    "for the provider, so it is captured, verified, shown and forwarded like a real one.\n" +
    "Secrets come from the endpoint's `secret` (or --secret); Discord, SendGrid and Standard Webhooks\n" +
    "without a secret are signed with a key pair hooktap keeps in .hooktap/trigger-keys.json.\n" +
    "\nExit status: 0 when every delivery got a 2xx (a --stale or --bad-signature one: when it was\n" +
    "refused), 1 otherwise, 2 for usage errors.\n" +
    "\nExamples:\n  hooktap trigger --list\n  hooktap trigger stripe checkout.session.completed\n" +
    "  hooktap trigger github pull_request.opened --to http://localhost:3000/webhooks/github --secret s3cret\n" +
    "  hooktap trigger stripe checkout --out-of-order --seed 7\n" +
    "  hooktap trigger stripe invoice.paid --set data.object.amount_paid=5000\n" +
    "  hooktap trigger stripe subscription --set invoice.paid:data.object.amount_paid=0 --unset 1:data.object.metadata\n" +
    "  hooktap trigger stripe --fixture steps.json\n" +
    "  hooktap trigger stripe invoice.paid --api-version 2024-06-20\n" +
    "  hooktap trigger slack message --stale\n  hooktap trigger shopify orders/create --retries 3\n",
  load: () => lazyImport<typeof import("./run.ts")>("src/commands/trigger/run.ts"),
});
