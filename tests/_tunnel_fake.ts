/**
 * A fake ngrok agent API / cloudflared metrics server on 127.0.0.1 (port 0)
 * replaying recorded answers from tests/fixtures/tunnel/.
 * @module
 */

/** Reads a recorded answer. */
export function fixture(name: string): Promise<string> {
  return Deno.readTextFile(new URL(`./fixtures/tunnel/${name}`, import.meta.url));
}

/** Serves `body` at `path` (JSON), 404 elsewhere; `url` is its base. */
export function fakeApi(path: string, body: string): { url: string } & AsyncDisposable {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    if (new URL(req.url).pathname !== path) return new Response("404 page not found", { status: 404 });
    return new Response(body, { headers: { "content-type": "application/json" } });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}
