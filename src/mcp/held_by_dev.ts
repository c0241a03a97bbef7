/**
 * What mcp's `replay` says of events the `hooktap dev` running in the project
 * still has waiting (the rule: src/send/held_by_dev.ts): the tool's words
 * (`to`, `held`) for what `hooktap replay` says with its flags.
 * @module
 */

/** The warning of a single replay of an event the running dev still has waiting. */
export function heldOneWarning(pid: number): string {
  return `the hooktap dev running here (pid ${pid}) still has this event waiting for its target: it sends it ` +
    "too as soon as the app listens, so the app may get it twice (stop that dev first to send it only once, or " +
    "send it elsewhere with `to`).";
}

/** The note of an `undelivered` bulk replay that left `n` events to the running dev. */
export function heldNote(n: number, pid: number, none: boolean): string {
  const them = n === 1 ? "it" : "them";
  return `${n === 1 ? "1 undelivered event is" : `${n} undelivered events are`} still pending while a ` +
    `hooktap dev runs here (pid ${pid}), which delivers waiting events as soon as their app listens: a replay ` +
    `now could deliver ${them} twice, so ${
      none ? "nothing was sent" : `this replay leaves ${them}`
    } (listed ` +
    `in held). To send ${them} yourself, stop that dev first, or send ${them} elsewhere with \`to\`.`;
}
