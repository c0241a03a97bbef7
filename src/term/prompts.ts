/**
 * The interactive setup questions (port, endpoint name, path, method),
 * asked with @clack/prompts. Only called when stdin is a terminal: without
 * one, clack would hang or die. Loaded lazily: clack reads `TERM` when
 * imported, which needs --allow-env, and most runs never prompt.
 * @module
 */
import { HooktapError } from "../errors.ts";
import { configFromAnswers, STARTER_ANSWERS, type StarterAnswers } from "../config/starter.ts";
import { validateConfig } from "../config/validate.ts";
import { suggestCommand } from "../text/command_line.ts";

/**
 * Why questions cannot be asked here, or `undefined` when they can: both
 * stdin and stdout must be terminals, and Deno must already allow what the
 * setup needs (reading the terminal's env, writing `configFile`), so that it
 * never stops on a permission prompt.
 */
export function whyNoPrompt(configFile: string): string | undefined {
  if (!Deno.stdin.isTerminal() || !Deno.stdout.isTerminal()) return "no terminal to ask";
  const granted = (d: Deno.PermissionDescriptor) => Deno.permissions.querySync(d).state === "granted";
  const missing: string[] = [];
  // clack and node:util's colour detection read a dozen variables (TERM, CI, NO_COLOR, ...).
  if (!granted({ name: "env" })) missing.push("--allow-env");
  if (!granted({ name: "write", path: configFile })) missing.push(`--allow-write=${configFile}`);
  if (missing.length > 0) return `the interactive setup needs ${missing.join(" ")} (or deno run -A)`;
  return undefined;
}

function endpointProblem(answers: Partial<StarterAnswers>): string | undefined {
  try {
    validateConfig(configFromAnswers({ ...STARTER_ANSWERS, ...answers }), null);
    return undefined;
  } catch (error) {
    const issues = (error as { issues?: string[] }).issues;
    // "endpoints[0].path must ..." reads as "The path must ..." in a question about one endpoint.
    return issues?.[0]?.replace(/^endpoints\[0\]\.(\w+)/, "The $1") ?? String(error);
  }
}

/** Asks the setup questions with the starter config's answers as defaults. */
export async function askStarterAnswers(intro: string): Promise<StarterAnswers> {
  const p = await import("@clack/prompts");
  const stop = (value: unknown): value is symbol => p.isCancel(value);
  const cancelled = () => {
    p.cancel(
      `Setup cancelled; nothing was written. \`${
        suggestCommand(["init", "--yes"])
      }\` writes the starter config.`,
    );
    return new HooktapError("Setup cancelled.", { exitCode: 130, reported: true });
  };
  p.intro(intro);
  const port = await p.text({
    message: "Port to listen on",
    placeholder: "8787",
    defaultValue: "8787",
    validate: (
      v,
    ) => (v === undefined || v === "" || /^\d+$/.test(v) && Number(v) <= 65535
      ? undefined
      : "A number from 0 to 65535"),
  });
  if (stop(port)) throw cancelled();
  const name = await p.text({
    message: "Endpoint name",
    placeholder: "default",
    defaultValue: "default",
    validate: (v) => (v ? endpointProblem({ name: v }) : undefined),
  });
  if (stop(name)) throw cancelled();
  const path = await p.text({
    message: "Endpoint path",
    placeholder: "/webhook",
    defaultValue: "/webhook",
    validate: (v) => (v ? endpointProblem({ path: v }) : undefined),
  });
  if (stop(path)) throw cancelled();
  const method = await p.text({
    message: "HTTP method",
    placeholder: "POST",
    defaultValue: "POST",
    validate: (v) => (v ? endpointProblem({ method: v }) : undefined),
  });
  if (stop(method)) throw cancelled();
  p.outro("Config ready.");
  return {
    port: Number(port || 8787),
    name: name || "default",
    path: path || "/webhook",
    method: (method || "POST").toUpperCase(),
  };
}
