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

/**
 * Source text of a config file. It imports nothing, so it loads with no
 * network and no package; `defineConfig` from `@hooktap/hooktap` is optional.
 */
export function configSource(answers: StarterAnswers = STARTER_ANSWERS): string {
  return `// hooktap config: \`hooktap dev\` serves these endpoints on this port.
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
};
`;
}
