/**
 * The commands hooktap suggests, as the user can run them: after how they
 * run hooktap (`npx hooktap` through npx, as the npm launcher says in
 * `HOOKTAP_INVOKED_AS`, else `hooktap`), each word shell-quoted. The one
 * prefix every printed command uses (hints, help examples, dev's notes).
 * @module
 */

/** The safe default of {@linkcode invokedAs}. */
const PLAIN = "hooktap";

/**
 * How the user runs hooktap, for the commands hooktap suggests: the launcher's `HOOKTAP_INVOKED_AS`
 * (`npx hooktap` through npx or an npm script, the bin's path such as `./node_modules/.bin/hooktap`, or
 * `hooktap` from the PATH: npm/hooktap.cjs), else `hooktap`; also `hooktap` when Deno may not read the
 * environment (asked without a prompt) or the value is not a plain command.
 */
export function invokedAs(
  read: () => string | undefined = () => {
    const name = "HOOKTAP_INVOKED_AS";
    if (Deno.permissions.querySync?.({ name: "env", variable: name }).state !== "granted") return undefined;
    return Deno.env.get(name);
  },
): string {
  let value: string | undefined;
  try {
    value = read()?.trim();
  } catch {
    return PLAIN; // permission denied, or no such API here
  }
  if (value === undefined) return PLAIN;
  if (
    // One word (a bin, a path), or a runner and its words (`npx hooktap`, `deno task hooktap`): a first word
    // with a `/` and a space after it is a path with a space, quoted below.
    /^(?:[A-Za-z0-9@._/:+-]+|[A-Za-z0-9@._:+-]+(?: [A-Za-z0-9@._/:+=-]+){1,4})$/.test(value) &&
    /(?:^|[ /])hooktap(?:@\S*)?$/.test(value)
  ) {
    return value;
  }
  // A path to the bin with a space or a quote in it (`/home/me/my app/node_modules/.bin/hooktap`): quoted.
  // deno-lint-ignore no-control-regex
  return /^[^\x00-\x1f\x7f]*\/hooktap$/.test(value) ? shellQuote(value) : PLAIN;
}

/** `arg` quoted for a POSIX shell when it needs it (single quotes; a quote inside as `'\''`). */
export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** A command line from `words` (each quoted as needed), after how the user runs hooktap. */
export function suggestCommand(words: readonly string[], runner: string = invokedAs()): string {
  return [runner, ...words.map(shellQuote)].join(" ");
}
