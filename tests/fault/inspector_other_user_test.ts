/**
 * Issue 38.3, as it was found: another local user against the inspector
 * that `hooktap dev` starts by default. The test creates that user with
 * `useradd` (so it runs as root) and runs `curl` as her with `setpriv`; she
 * sends a local `Host`, as before. She must not read the API, the page's
 * token, the token file or the live stream, nor replay (let alone get a
 * body of hers signed with the endpoint's secret). The same requests with
 * the token pass, so what stops her is the token, not the network.
 * Skipped, with the reason in its name, where it cannot run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startDev, withTmpDir, writeFile } from "../_helpers.ts";

function which(name: string): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":").concat(["/usr/sbin", "/usr/bin", "/sbin"])) {
    try {
      if (Deno.statSync(join(dir, name)).isFile) return join(dir, name);
    } catch { /* not here */ }
  }
  return undefined;
}

const TOOLS = {
  useradd: which("useradd"),
  userdel: which("userdel"),
  setpriv: which("setpriv"),
  curl: which("curl"),
};
const SKIP = Deno.build.os !== "linux"
  ? "not Linux"
  : Deno.uid() !== 0
  ? "not root: creating a second local user needs root"
  : Object.entries(TOOLS).find(([, path]) => path === undefined)?.[0]?.concat(" is not installed");

async function run(cmd: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await new Deno.Command(cmd, { args, stdin: "null", stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  return { code: r.code, out: dec.decode(r.stdout), err: dec.decode(r.stderr) };
}

const SECRET = "whsec_other_user_test";

Deno.test({
  name: `another local user can neither read nor replay through dev's inspector${
    SKIP ? ` (skipped: ${SKIP})` : ""
  }`,
  ignore: SKIP !== undefined,
  async fn() {
    const user = `htprobe${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36).slice(0, 6)}`;
    const add = await run(TOOLS.useradd!, [
      "--system",
      "--no-create-home",
      "--shell",
      "/usr/sbin/nologin",
      user,
    ]);
    assert.equal(add.code, 0, add.err);
    try {
      const uid = (await run("id", ["-u", user])).out.trim();
      const gid = (await run("id", ["-g", user])).out.trim();
      /** `curl` as the other user: resolves to [status, body]. */
      const curlAs = async (args: string[]): Promise<[number, string]> => {
        const r = await run(TOOLS.setpriv!, [
          `--reuid=${uid}`,
          `--regid=${gid}`,
          "--clear-groups",
          "--",
          TOOLS.curl!,
          "--silent",
          "--max-time",
          "3",
          "--noproxy",
          "*",
          "--write-out",
          "\n%{http_code}",
          ...args,
        ]);
        const at = r.out.lastIndexOf("\n");
        return [Number(r.out.slice(at + 1)), r.out.slice(0, at)];
      };

      await using tmp = await withTmpDir();
      await Deno.chmod(tmp.path, 0o755); // a project others may look into
      await writeFile(
        tmp.path,
        "hooktap.config.ts",
        `export default { port: 0, endpoints: [{ name: "stripe", path: "/stripe", method: "POST", ` +
          `provider: "stripe", secret: "${SECRET}" }] };\n`,
      );
      await using dev = await startDev(tmp.path);
      const m = dev.stderr().match(/Inspect: (http:\/\/127\.0\.0\.1:(\d+)\/)\?token=([0-9a-f]{64})/);
      assert.ok(m, dev.stderr());
      const [, base, port, token] = m;
      const stored = await fetch(`${dev.url}/stripe`, {
        method: "POST",
        headers: { authorization: "Bearer private-token-of-the-owner", "content-type": "application/json" },
        body: '{"card":"owner-only"}',
      });
      const id = stored.headers.get("x-hooktap-event-id")!;
      await stored.body?.cancel();
      const host = ["-H", `Host: 127.0.0.1:${port}`];

      // Her own server, where she would have the replay (and its fresh signature) sent.
      const got: string[] = [];
      await using hers = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (r) => {
        got.push(await r.text());
        return new Response("thanks");
      });
      const replay = [
        "-X",
        "POST",
        "-H",
        "content-type: application/json",
        "--data",
        JSON.stringify({ to: `http://127.0.0.1:${hers.addr.port}/`, body: '{"mine":1}', resign: true }),
        `${base}api/events/${id}/replay`,
      ];

      for (
        const path of ["api/events", `api/events/${id}`, `api/events/${id}/raw`, "api/info", "api/stream", ""]
      ) {
        const [status, body] = await curlAs([...host, `${base}${path}`]);
        assert.equal(status, 401, `${path}: ${body}`);
        assert.ok(
          !body.includes("owner-only") && !body.includes("private-token") && !body.includes(token!),
          body,
        );
      }
      const [replayStatus] = await curlAs([...host, ...replay]);
      assert.equal(replayStatus, 401);
      assert.deepEqual(got, [], "nothing was replayed, nothing signed");

      // The token file is the owner's alone, even in a directory others may list.
      const tokenFile = join(tmp.path, ".hooktap", `inspector-${port}.token`);
      assert.equal((await Deno.readTextFile(tokenFile)).trim(), token);
      await Deno.chmod(join(tmp.path, ".hooktap"), 0o755);
      const [fileStatus, fileBody] = await curlAs([`file://${tokenFile}`]);
      assert.notEqual(fileStatus, 200);
      assert.ok(!fileBody.includes(token!));

      // The control: the same requests with the token pass (had she the token, she would be in).
      const [withToken, listed] = await curlAs([
        ...host,
        "-H",
        `x-hooktap-token: ${token}`,
        `${base}api/events`,
      ]);
      assert.equal(withToken, 200);
      assert.ok(listed.includes(id));
      const [signedStatus, signed] = await curlAs([...host, "-H", `x-hooktap-token: ${token}`, ...replay]);
      assert.equal(signedStatus, 200, signed);
      assert.deepEqual(got, ['{"mine":1}']);
      assert.equal(await dev.stop(), 0);
    } finally {
      await run(TOOLS.userdel!, [user]);
    }
  },
});
