import assert from "node:assert/strict";
import { BodyBudget } from "../receiver/budget.ts";
import { HubBudgetError, KeyedBudget, RequestBudget } from "./budgets.ts";

const layers = () => ({
  channel: new KeyedBudget(100),
  address: new KeyedBudget(150),
  hub: new BodyBudget(200),
});

Deno.test("hub budgets: a body is refused by the first bound it would pass, and nothing stays charged", () => {
  const l = layers();
  const a = new RequestBudget(l, "A", "1.1.1.1");
  a.charge(100);
  assert.throws(() => new RequestBudget(l, "A", "2.2.2.2").charge(1), (e) => {
    return e instanceof HubBudgetError && e.scope === "channel";
  });
  // Another channel from the same address: the address's bound (150) is next.
  assert.throws(() => new RequestBudget(l, "B", "1.1.1.1").charge(60), (e) => {
    return e instanceof HubBudgetError && e.scope === "address";
  });
  assert.equal(l.channel.used("B"), 0, "the channel's charge is rolled back");
  const b = new RequestBudget(l, "B", "2.2.2.2");
  b.charge(90);
  // The hub's bound (200): 190 charged now.
  assert.throws(() => new RequestBudget(l, "C", "3.3.3.3").charge(20), (e) => {
    return e instanceof HubBudgetError && e.scope === "hub";
  });
  assert.equal(l.channel.used("C"), 0);
  assert.equal(l.address.used("3.3.3.3"), 0);
  a.release(100);
  b.release(500); // more than it holds: gives back only its own
  assert.equal(l.hub.used, 0);
  assert.equal(l.channel.size, 0, "keys at zero are forgotten");
  assert.equal(l.address.size, 0);
});
