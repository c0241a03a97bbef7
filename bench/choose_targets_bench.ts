/**
 * Issue 26: the cost of choosing an event's targets by their rules (`when`),
 * compiled once per config, run once per event after its verdict is known.
 * Three targets of which one matches (prefix type, a type list, a where and
 * a header), beside one target without a rule (today). Per event per rule
 * = the time shown / 3. `deno bench bench/choose_targets_bench.ts`
 * @module
 */
import { chooseTargets, compileWhen } from "../src/send/choose.ts";
import { checkForwards } from "../src/config/forward.ts";
import { buildEvent } from "../src/event/record.ts";

const body = new TextEncoder().encode(JSON.stringify({ action: "opened", issue: { number: 1, title: "x" } }));
const event = buildEvent({
  id: "evt_20240501_01HWXYZ0000000000000000000",
  endpoint: "github",
  receivedAt: new Date(),
  method: "POST",
  path: "/webhook",
  query: "",
  headers: [["X-GitHub-Event", "issues"], ["Content-Type", "application/json"], [
    "User-Agent",
    "GitHub-Hookshot",
  ]],
  body,
  remoteAddr: "127.0.0.1",
});
event.provider = "github";
event.type = "issues.opened";

const issues: string[] = [];
const three = checkForwards(
  [
    { name: "pushes", to: "http://localhost:3000/push", when: { type: ["push", "pull_request"] } },
    {
      name: "opened-by-bot",
      to: "http://localhost:3001/x",
      when: { where: "action=closed", hasHeader: "X-GitHub-Event=issues" },
    },
    { name: "issues", to: "http://localhost:3002/issues", when: { type: "issues", provider: "github" } },
  ],
  "endpoints[0].forward",
  issues,
)!;
if (issues.length > 0) throw new Error(issues.join("\n"));
const ruled = three.map((t) => ({ ...t, test: compileWhen(t.when) }));
const plain = [{ name: "app", test: compileWhen(undefined) }];
let sink = 0;

Deno.bench("today: one target, no rule", { group: "choose", baseline: true }, () => {
  sink += chooseTargets(plain, event).length;
});
Deno.bench("issue 26: three targets with rules, one matches (÷3 per rule)", { group: "choose" }, () => {
  sink += chooseTargets(ruled, event).length;
});
if (chooseTargets(ruled, event).map((t) => t.name).join() !== "issues") throw new Error("wrong choice");
globalThis.addEventListener("unload", () => {
  if (sink === -1) throw new Error("unreachable: keeps the results alive");
});
