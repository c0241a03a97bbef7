/**
 * Opens a URL in the user's browser: `xdg-open` (Linux, BSD), `open`
 * (macOS), `start` via cmd (Windows).
 * @module
 */

/** The command that opens `url` on this OS. */
export function openerFor(url: string, os: typeof Deno.build.os = Deno.build.os): string[] {
  if (os === "darwin") return ["open", url];
  if (os === "windows") return ["cmd", "/c", "start", '""', url];
  return ["xdg-open", url];
}

/** Opens `url`; resolves to why it could not, or `undefined` when the opener ran fine. */
export async function openInBrowser(url: string): Promise<string | undefined> {
  const [cmd, ...args] = openerFor(url);
  try {
    const result = await new Deno.Command(cmd!, { args, stdin: "null", stdout: "null", stderr: "null" })
      .output();
    return result.success ? undefined : `${cmd} exited with ${result.code}`;
  } catch (error) {
    return error instanceof Deno.errors.NotFound ? `${cmd} is not installed` : String(error);
  }
}
