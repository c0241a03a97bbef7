// The start-up floor: `deno run` of a script that does nothing.
