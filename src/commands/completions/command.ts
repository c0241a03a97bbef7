import { lazyImport } from "../../cli/lazy.ts";
import { defineCommand, defineOptions } from "../../cli/spec.ts";

/** Shells a completion script is printed for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

/** Options of `hooktap completions`. */
export const options = defineOptions({});

/** `hooktap completions`. */
export const completions = defineCommand({
  name: "completions",
  description: "Print a shell completion script (commands, options, endpoint names, recent event ids)",
  arguments: [{ name: "shell", description: "the shell to complete in", required: true, choices: SHELLS }],
  options,
  after: "\nThe script runs `hooktap complete -- ...` at each TAB, so `hooktap` must be on your PATH\n" +
    "(npm install -g hooktap, or deno task install in a clone: docs/install.md); it completes\n" +
    "`hooktap ...`, not `npx hooktap ...`.\n" +
    "\nExamples:\n  source <(hooktap completions bash)                                   # in ~/.bashrc\n" +
    "  hooktap completions zsh > ~/.zfunc/_hooktap                          # with fpath+=(~/.zfunc)\n" +
    "  hooktap completions fish > ~/.config/fish/completions/hooktap.fish\n",
  load: () => lazyImport<typeof import("./run.ts")>("src/commands/completions/run.ts"),
});
