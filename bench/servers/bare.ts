/**
 * Configuration (a), the baseline: a bare `Deno.serve` that reads the body
 * and answers 200. The ceiling of the HTTP stack on this machine.
 *
 *     deno run --allow-net bench/servers/bare.ts PORT
 * @module
 */
const port = Number(Deno.args[0] ?? "8000");

const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, async (request) => {
  await request.arrayBuffer();
  return new Response("ok");
});
// SIGTERM stops it cleanly (so that `--cpu-prof` can write its profile).
const stop = () => {
  Deno.removeSignalListener("SIGTERM", stop);
  server.shutdown();
};
Deno.addSignalListener("SIGTERM", stop);
