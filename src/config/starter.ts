import type { Config } from "./types.ts";

/** Answers for the starter config's questions (see `init`). */
export interface StarterAnswers {
  port: number;
  name: string;
  path: string;
  method: string;
}

/** The starter config's answers: port 8787, endpoint `default` at `POST /webhook`. */
export const STARTER_ANSWERS: Readonly<StarterAnswers> = {
  port: 8787,
  name: "default",
  path: "/webhook",
  method: "POST",
};

/** The config a set of answers describes. */
export function configFromAnswers(answers: StarterAnswers): Config {
  return {
    port: answers.port,
    endpoints: [{ name: answers.name, path: answers.path, method: answers.method }],
  };
}

/** The starter config: port 8787, one endpoint `default` at `POST /webhook`. */
export const STARTER_CONFIG: Config = configFromAnswers(STARTER_ANSWERS);

/** Options of {@linkcode configSource}. */
export interface ConfigSourceOptions {
  /**
   * Type the config from the npm package `hooktap` (installed in the project's node_modules):
   * `import type { Config } from "hooktap"` and `satisfies Config`. A type-only import is erased
   * when the file loads, so it needs the package only in the editor.
   * @default false
   */
  typed?: boolean;
}

/**
 * Source text of a config file. Untyped, it imports nothing, so it loads with
 * no network and no package; typed, it imports only types.
 */
export function configSource(
  answers: StarterAnswers = STARTER_ANSWERS,
  options: ConfigSourceOptions = {},
): string {
  const typed = options.typed ?? false;
  return `${
    typed ? 'import type { Config } from "hooktap";\n\n' : ""
  }// hooktap config: \`hooktap dev\` serves these endpoints on this port.
// Each endpoint: name (for \`hooktap inspect --endpoint NAME\`), path (exact,
// starting with "/"), method ("POST", or a list like ["POST", "PUT"]).
// Optional: maxBodySize in bytes (default 25 MiB).
export default {
  port: ${answers.port},
  endpoints: [
    { name: ${JSON.stringify(answers.name)}, path: ${JSON.stringify(answers.path)}, method: ${
    JSON.stringify(answers.method)
  } },
  ],
}${typed ? " satisfies Config" : ""};
`;
}
