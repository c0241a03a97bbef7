/**
 * Bad configs at the CLI level: every invalid form exits non-zero with a
 * message naming the file or the field path; configs that hang on import
 * are stopped after a bounded wait; a directory, a FIFO, an unreadable file
 * and a file Deno may not read each get a clear message.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cliArgs, LEAST_PRIVILEGE, runCli, withTmpDir, writeFile } from "../_helpers.ts";

/** The config loader's wait, shortened for the hang tests (see src/config/load.ts). */
const TIMEOUT_ENV = { HOOKTAP_CONFIG_TIMEOUT_MS: "1500" };
const WITH_TIMEOUT_ENV = [...LEAST_PRIVILEGE, "--allow-env=HOOKTAP_CONFIG_TIMEOUT_MS"];
const EX_CONFIG = 78;

const endpoint = (name: string, path: string, method: string) =>
  `{ name: ${JSON.stringify(name)}, path: ${JSON.stringify(path)}, method: ${JSON.stringify(method)} }`;

/** [case, config source, patterns stderr must match] */
const INVALID: [string, string, RegExp[]][] = [
  ["a port above 65535", `export default { port: 70000, endpoints: [${endpoint("a", "/a", "POST")}] };`, [
    /^\s+- port must be an integer from 0 to 65535 .*got 70000/m,
  ]],
  [
    "a port given as a string",
    `export default { port: "8787", endpoints: [${endpoint("a", "/a", "POST")}] };`,
    [
      /- port must be an integer .*got "8787"/,
    ],
  ],
  ["a fractional port", `export default { port: 80.5, endpoints: [${endpoint("a", "/a", "POST")}] };`, [
    /- port must be an integer .*got 80\.5/,
  ]],
  ["empty endpoints", `export default { port: 8787, endpoints: [] };`, [
    /- endpoints must be a non-empty array, got \[\]/,
  ]],
  ["missing endpoints", `export default { port: 8787 };`, [
    /- endpoints must be a non-empty array, got nothing \(the field is missing\)/,
  ]],
  [
    "duplicate names",
    `export default { port: 8787, endpoints: [${endpoint("a", "/a", "POST")}, ${
      endpoint("a", "/b", "POST")
    }] };`,
    [/- endpoints\[1\]\.name "a" is already used by endpoints\[0\]/],
  ],
  [
    "a path without a leading slash",
    `export default { port: 8787, endpoints: [${endpoint("a", "webhook", "POST")}] };`,
    [
      /- endpoints\[0\]\.path must be a string starting with "\/", got "webhook"/,
    ],
  ],
  [
    "a path with dot segments",
    `export default { port: 8787, endpoints: [${endpoint("a", "/x/../webhook", "POST")}] };`,
    [
      /- endpoints\[0\]\.path "\/x\/\.\.\/webhook" is not in normal form: write "\/webhook"/,
    ],
  ],
  [
    "a method that is not a token",
    `export default { port: 8787, endpoints: [${endpoint("a", "/a", "PO ST")}] };`,
    [
      /- endpoints\[0\]\.method must be an HTTP method name .*got "PO ST"/,
    ],
  ],
  [
    "a bad method inside a list",
    `export default { port: 8787, endpoints: [{ name: "a", path: "/a", method: ["POST", ""] }] };`,
    [/- endpoints\[0\]\.method\[1\] must be an HTTP method name/],
  ],
  [
    "overlapping endpoints (same path, a shared method in another case)",
    `export default { port: 8787, endpoints: [${
      endpoint("a", "/w", "POST")
    }, { name: "b", path: "/w", method: ["put", "post"] }] };`,
    [/- endpoints\[1\] \(POST \/w\) overlaps endpoints\[0\] "a"/],
  ],
  [
    "several problems at once",
    `export default { port: -1, endpoints: [${endpoint("", "x", "")}], extra: true };`,
    [
      /has 5 problems:/,
      /- port must/,
      /- endpoints\[0\]\.name/,
      /- endpoints\[0\]\.path/,
      /- endpoints\[0\]\.method/,
      /- extra is not a config field/,
    ],
  ],
  ["a syntax error", `export default { port: 8787, endpoints: [ };`, [
    /error: Config file .*hooktap\.config\.ts failed to load:/,
    /SyntaxError|Expression expected|Unexpected token/,
  ]],
  ["a config that throws", `throw new Error("boom from the config");\nexport default {};`, [
    /error: Config file .*hooktap\.config\.ts failed to load:/,
    /boom from the config/,
  ]],
  ["no default export", `export const port = 8787;`, [
    /must default-export an object \{ port, endpoints \}, got no default export/,
  ]],
  ["a default export that is not an object", `export default 42;`, [
    /must default-export an object .*got 42/,
  ]],
  [
    "a function where a config field expects data",
    `export default { port: 8787, endpoints: [${endpoint("a", "/a", "POST")}], onEvent() {} };`,
    [/onEvent is not a config field/],
  ],
];

for (const [name, source, patterns] of INVALID) {
  Deno.test(`\`hooktap dev\` with ${name}: exits ${EX_CONFIG}, naming what is wrong`, async () => {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", source);
    const result = await runCli(["dev", "--port", "0"], { cwd: tmp.path });
    assert.equal(result.code, EX_CONFIG, result.stderr);
    for (const pattern of patterns) assert.match(result.stderr, pattern);
    assert.match(result.stderr, /^error: /m);
    assert.doesNotMatch(result.stderr, /failed unexpectedly|Uncaught/);
    assert.equal(result.stdout, "");
    // Nothing was started or written.
    await assert.rejects(Deno.stat(join(tmp.path, ".hooktap", "events.jsonl")));
  });
}

for (
  const [name, source] of [
    ["a top-level await that never settles", `await new Promise(() => {});\nexport default {};`],
    ["an endless loop", `while (true) {}\nexport default {};`],
    ["an endless loop after a pending timer", `setTimeout(() => {}, 1e9);\nfor (;;) {}\nexport default {};`],
  ]
) {
  Deno.test(`a config with ${name} is given up on after a bounded wait, with a clear message`, async () => {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", source!);
    const started = Date.now();
    const result = await runCli(["dev", "--port", "0"], {
      cwd: tmp.path,
      permissions: WITH_TIMEOUT_ENV,
      env: TIMEOUT_ENV,
    });
    const seconds = (Date.now() - started) / 1000;
    assert.equal(result.code, EX_CONFIG, result.stderr);
    assert.match(
      result.stderr,
      /error: Config file .*hooktap\.config\.ts did not finish loading within 1\.5 s\./,
    );
    assert.match(result.stderr, /never settles, loop forever/);
    assert.ok(seconds < 60, `it exited (after ${seconds.toFixed(1)} s)`); // bounded, not a timing target
  });
}

Deno.test("--config pointing at a directory says so", async () => {
  await using tmp = await withTmpDir();
  await Deno.mkdir(join(tmp.path, "configs"));
  const result = await runCli(["dev", "--port", "0", "--config", "configs"], { cwd: tmp.path });
  assert.equal(result.code, EX_CONFIG);
  assert.match(result.stderr, /error: Config path .*configs is a directory, not a file\./);
  assert.match(result.stderr, /point --config at the file itself/);
});

Deno.test("hooktap.config.ts that is a directory says so", async () => {
  await using tmp = await withTmpDir();
  await Deno.mkdir(join(tmp.path, "hooktap.config.ts"));
  const result = await runCli(["dev", "--port", "0"], { cwd: tmp.path });
  assert.equal(result.code, EX_CONFIG);
  assert.match(result.stderr, /hooktap\.config\.ts is a directory, not a file\./);
});

Deno.test({
  name:
    "a config path that is a FIFO is refused at once (not opened, so nothing blocks), named for what it is",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using tmp = await withTmpDir();
    const mk = await new Deno.Command("mkfifo", { args: [join(tmp.path, "hooktap.config.ts")] }).output();
    assert.ok(mk.success);
    const result = await runCli(["dev", "--port", "0"], { cwd: tmp.path });
    assert.equal(result.code, EX_CONFIG);
    assert.match(result.stderr, /hooktap\.config\.ts is not a regular file \(it is a FIFO\)/);
  },
});

Deno.test("--config naming a missing file says so", async () => {
  await using tmp = await withTmpDir();
  const result = await runCli(["dev", "--port", "0", "--config", "nope.config.ts"], { cwd: tmp.path });
  assert.equal(result.code, EX_CONFIG);
  assert.match(result.stderr, /error: Config file .*nope\.config\.ts does not exist\./);
});

Deno.test("a config outside what Deno may read (--allow-read=.) gets a clear message, not a stack", async () => {
  await using tmp = await withTmpDir();
  await using other = await withTmpDir();
  const file = await writeFile(other.path, "hooktap.config.ts", `export default { port: 0, endpoints: [] };`);
  const result = await runCli(["dev", "--port", "0", "--config", file], { cwd: tmp.path });
  assert.equal(result.code, EX_CONFIG, result.stderr);
  assert.match(result.stderr, /error: Cannot read config file .*hooktap\.config\.ts: /);
  assert.match(result.stderr, /--allow-read/);
  assert.doesNotMatch(result.stderr, /failed unexpectedly|Uncaught/);
});

// As root, chmod 000 blocks nothing: root bypasses file permissions through CAP_DAC_OVERRIDE.
// Run hooktap as root *without* that capability (setpriv drops it from the bounding set), so the
// kernel really refuses the read, exactly as it would for an ordinary user.
const setpriv = Deno.build.os === "linux" && Deno.uid() === 0 &&
  (await new Deno.Command("setpriv", { args: ["--version"], stdout: "null", stderr: "null" }).output().then(
    (o) => o.success,
    () => false,
  ));

Deno.test({
  name: "an unreadable config file (mode 000, read really refused by the kernel) gets a clear message",
  ignore: !setpriv && Deno.uid() === 0,
  async fn() {
    await using tmp = await withTmpDir();
    const file = await writeFile(tmp.path, "hooktap.config.ts", `export default { port: 0, endpoints: [] };`);
    await Deno.chmod(file, 0o000);
    const deno = cliArgs(LEAST_PRIVILEGE, ["dev", "--port", "0"]);
    const [cmd, args] = Deno.uid() === 0
      ? ["setpriv", ["--bounding-set=-dac_override,-dac_read_search", Deno.execPath(), ...deno]]
      : [Deno.execPath(), deno];
    const out = await new Deno.Command(cmd as string, {
      args: args as string[],
      cwd: tmp.path,
      stdin: "null",
      env: { NO_COLOR: "1" },
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, EX_CONFIG, stderr);
    assert.match(stderr, /error: Cannot read config file .*hooktap\.config\.ts: Permission denied/);
    assert.match(stderr, /check the file's permissions \(chmod u\+r\)/);
  },
});
