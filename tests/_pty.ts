/**
 * Runs hooktap in a real pseudo-terminal of a given size (util-linux
 * `script`), for the tests of what a person sees: layout, colours, what is
 * refused on a terminal.
 * @module
 */
import { cliArgs, LEAST_PRIVILEGE } from "./_helpers.ts";

/** Whether util-linux `script` is here (the pty tests are skipped without it). */
export const HAS_SCRIPT: boolean = await new Deno.Command("script", {
  args: ["--version"],
  stdout: "null",
  stderr: "null",
}).output().then((o) => o.success, () => false);

function _quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** What a command printed on a terminal (stdout and stderr both reach it), and its exit code. */
export interface PtyResult {
  code: number;
  /** The bytes the terminal received, as text, `\r\n` turned into `\n`. */
  screen: string;
}

/** Runs `hooktap ...args` in a `columns`-wide terminal in `cwd`, to completion. */
export async function runInPty(
  args: string[],
  options: { cwd: string; columns?: number; permissions?: string[]; env?: Record<string, string> },
): Promise<PtyResult> {
  const command = [Deno.execPath(), ...cliArgs(options.permissions ?? LEAST_PRIVILEGE, args)].map(_quote)
    .join(" ");
  const out = await new Deno.Command("script", {
    args: ["-qec", `stty cols ${options.columns ?? 80} rows 50; exec ${command}`, "/dev/null"],
    cwd: options.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { TERM: "xterm", ...options.env },
  }).output();
  return { code: out.code, screen: new TextDecoder().decode(out.stdout).replaceAll("\r\n", "\n") };
}

/** The screen's lines without colour codes. */
export function plainLines(screen: string): string[] {
  // deno-lint-ignore no-control-regex
  return screen.replace(/\x1b\[[0-9;]*m/g, "").split("\n");
}

/** A command running in a pty: its screen so far, keys to type, and a stop. */
export interface PtySession extends AsyncDisposable {
  screen(): string;
  /** Waits until the screen (from `from` on) matches `pattern`; throws with the screen after 20 s. */
  waitFor(pattern: RegExp, from?: number): Promise<void>;
  /** Types `text` (`"\x03"` is Ctrl-C). */
  type(text: string): Promise<void>;
  /** Resolves to the exit code once it exited. */
  exited(): Promise<number>;
}

/** Starts `hooktap ...args` in a `columns`-wide terminal in `cwd`. */
export function startInPty(
  args: string[],
  options: { cwd: string; columns?: number; permissions?: string[]; env?: Record<string, string> },
): PtySession {
  return startCommandInPty(
    [Deno.execPath(), ...cliArgs(options.permissions ?? LEAST_PRIVILEGE, args)],
    options,
  );
}

/**
 * Starts any command (`argv`, like `["deno", "task", "dev"]`) in a `columns`-wide terminal in `cwd`, as
 * the terminal's foreground job: Ctrl-C typed there reaches its whole process group, as in a shell.
 */
export function startCommandInPty(
  argv: string[],
  options: { cwd: string; columns?: number; env?: Record<string, string> },
): PtySession {
  const command = argv.map(_quote).join(" ");
  const child = new Deno.Command("script", {
    args: ["-qec", `stty cols ${options.columns ?? 80} rows 50; exec ${command}`, "/dev/null"],
    cwd: options.cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { TERM: "xterm", ...options.env },
  }).spawn();
  const writer = child.stdin.getWriter();
  let screen = "";
  const pump = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of child.stdout) {
      screen += dec.decode(chunk, { stream: true }).replaceAll("\r\n", "\n");
    }
  })();
  const drainErr = child.stderr.cancel();
  const exited = async () => {
    const status = await child.status;
    await pump;
    await drainErr;
    return status.code;
  };
  return {
    screen: () => screen,
    async waitFor(pattern, from = 0) {
      const deadline = Date.now() + 20_000;
      while (!pattern.test(screen.slice(from))) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; screen:\n${screen}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async type(text) {
      await writer.write(new TextEncoder().encode(text));
    },
    exited,
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
      await writer.close().catch(() => {});
      await exited();
    },
  };
}
