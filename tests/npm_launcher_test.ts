/**
 * The npm launcher's permission table (npm/hooktap.cjs): every command of the command tree has its own
 * entry, so a new command does not run under the read-only fallback and fail on its first network or write
 * call once installed from npm. The installed flows are run end to end in tests/install_test.ts.
 * @module
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join } from "node:path";
import { PROGRAM } from "../src/cli.ts";
import { withTmpDir } from "./_helpers.ts";

const require = createRequire(import.meta.url);
const launcher = require("../npm/hooktap.cjs") as {
  PERMISSIONS: Record<string, string[]>;
  permissionFlags(args: string[], cwd?: string): string[];
  denoArgs(lib: string, args: string[], cwd?: string): string[];
  scriptOf(args: string[]): string;
  ENTRIES: Record<string, string>;
  invokedAs(env: Record<string, string>, argv1?: string, cwd?: string): string;
};

Deno.test("npm launcher: every command of the tree has its permissions (none falls back to read-only)", () => {
  const missing = PROGRAM.commands.map((c) => c.name).filter((name) => !(name in launcher.PERMISSIONS));
  assert.deepEqual(missing, [], `add these commands to PERMISSIONS in npm/hooktap.cjs: ${missing}`);
});

Deno.test("npm launcher: trigger gets the network and the store; hub gets KV and its --kv directory", () => {
  const trigger = launcher.permissionFlags(["trigger", "github", "push", "--body-file", "/tmp/x/body.json"]);
  assert.ok(trigger.includes("--allow-net"), trigger.join(" "));
  assert.ok(trigger.includes("--allow-write=.hooktap"), trigger.join(" "));
  assert.ok(trigger.includes("--allow-read=.,/tmp/x/body.json"), trigger.join(" "));
  const hub = launcher.permissionFlags(["hub", "serve", "--kv", "/srv/hub/hub.kv", "--cert=/etc/c.pem"]);
  assert.ok(hub.includes("--unstable-kv"), hub.join(" "));
  assert.ok(hub.includes("--allow-net"), hub.join(" "));
  assert.ok(hub.includes("--allow-write=.hooktap-hub,/srv/hub"), hub.join(" "));
  assert.ok(hub.includes("--allow-read=.,/etc/c.pem,/srv/hub"), hub.join(" "));
});

const postinstall = require("../npm/postinstall.cjs") as {
  shellLauncher(launcher: unknown, deno: string, lib: string, nodeLauncher: string): string;
};

Deno.test({
  name:
    "npm shell launcher: runs Deno with the same flags as the Node launcher, for every command and option",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using tmp = await withTmpDir("hooktap_sh_launcher_");
    // A stand-in for the Deno binary that prints its arguments, one per line.
    const fake = join(tmp.path, "deno");
    await Deno.writeTextFile(fake, "#!/bin/sh\nfor a do printf '%s\\n' \"$a\"; done\n");
    await Deno.chmod(fake, 0o755);
    const shell = join(tmp.path, "hooktap.cjs");
    await Deno.writeTextFile(
      shell,
      postinstall.shellLauncher(launcher, fake, "/pkg/lib", "/pkg/bin/launcher.cjs"),
    );
    await Deno.chmod(shell, 0o755);
    const cases = [
      [],
      ["--help"],
      ["-h", "logs"],
      ["help", "logs"],
      ["--version"],
      ["logs"],
      [""],
      ["logsx"],
      ["--", "logs"],
      ["logs", "-n", "5"],
      ["nosuch"],
      ...PROGRAM.commands.map((c) => [c.name]),
      ["mcp"],
      ["dev", "-c", "my config.ts", "--ready-file=/tmp/x y/ready.json", "--port", "0"],
      ["init", "--config=a.ts", "--yes"],
      ["export", "-o", "out.jsonl", "-cb.ts", "--", "--output", "ignored"],
      ["replay", "ID", "--body-file", "/tmp/b.json"],
      ["trigger", "github", "push", "--body-file=/tmp/b.json"],
      ["hub", "serve", "--kv", "/srv/hub/hub.kv", "--cert=/etc/c.pem", "--key", "k.pem", "--kv", "local.kv"],
      ["prune", "--older-than", "1d"],
      ["rm", "ID"],
      ["inspect", "ID"],
      ["doctor"],
      ["complete", "--", "logs", "--endpoint", ""],
      ["trigger", "--list"],
      ["triggers"],
    ];
    const cwd = await Deno.realPath(tmp.path);
    for (const args of cases) {
      const out = await new Deno.Command(shell, { args, cwd, stdout: "piped", stderr: "piped" }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      const words = new TextDecoder().decode(out.stdout).split("\n").slice(0, -1);
      const node = launcher.denoArgs("/pkg/lib", args, cwd);
      // The same flags (Deno reads them in any order), the same script and arguments.
      const script = `/pkg/lib/${launcher.scriptOf(args)}`;
      assert.equal(node.at(-1 - args.length), script, args.join(" "));
      const flags = (list: string[]) => list.slice(0, list.indexOf(script)).sort();
      assert.deepEqual(flags(words), flags(node), args.join(" "));
      assert.deepEqual(words.slice(words.indexOf(script)), [script, ...args]);
    }
  },
});

Deno.test("npm launcher: prune and rm reach a running dev's control socket, and only it", () => {
  for (const command of ["prune", "rm"]) {
    const flags = launcher.permissionFlags([command], "/work/app");
    assert.ok(flags.includes("--allow-net=unix:/work/app/.hooktap/control.sock"), flags.join(" "));
    assert.ok(!flags.includes("--allow-net"), flags.join(" "));
  }
  const mcp = launcher.permissionFlags(["mcp"]);
  for (const flag of ["--allow-net", "--allow-read=.", "--allow-write=.hooktap", "--allow-env"]) {
    assert.ok(mcp.includes(flag), mcp.join(" "));
  }
});

Deno.test("npm launcher: HOOKTAP_INVOKED_AS says how the user ran hooktap: npx, a script, the PATH, a path", async () => {
  await using tmp = await withTmpDir("hooktap_invoked_");
  const cwd = await Deno.realPath(tmp.path);
  const bin = join(cwd, "node_modules", ".bin");
  await Deno.mkdir(bin, { recursive: true });
  await Deno.writeTextFile(join(bin, "hooktap"), "");
  const local = join(bin, "hooktap");
  // npx and `npm exec` (npm_command=exec, npm_lifecycle_event=npx), and an npm script (`npm run dev`): npx.
  assert.equal(
    launcher.invokedAs({ npm_command: "exec", npm_lifecycle_event: "npx" }, local, cwd),
    "npx hooktap",
  );
  assert.equal(
    launcher.invokedAs({ npm_command: "run-script", npm_lifecycle_event: "dev" }, local, cwd),
    "npx hooktap",
  );
  // ./node_modules/.bin/hooktap (Node gives its absolute path): the path, relative to the working directory.
  assert.equal(launcher.invokedAs({ PATH: "/usr/bin" }, local, cwd), "./node_modules/.bin/hooktap");
  // A global install, the first hooktap on the PATH: the bare name.
  assert.equal(launcher.invokedAs({ PATH: `/nonexistent:${bin}:/usr/bin` }, local, cwd), "hooktap");
  // A path outside the working directory, not on the PATH: that path.
  const elsewhere = join(cwd, "sub");
  await Deno.mkdir(elsewhere);
  assert.equal(launcher.invokedAs({ PATH: "/usr/bin" }, local, elsewhere), local);
  // Run through a shim (argv[1] is the package's file, not a bin): npx for a local install, else hooktap.
  const file = join(cwd, "node_modules", "hooktap", "bin", "hooktap.cjs");
  assert.equal(launcher.invokedAs({ PATH: "/usr/bin" }, file, cwd), "npx hooktap");
  assert.equal(
    launcher.invokedAs({ PATH: "/usr/bin" }, "/usr/lib/node_modules/hooktap/bin/hooktap.cjs", cwd),
    "hooktap",
  );
  assert.equal(launcher.invokedAs({}, "", cwd), "hooktap");
});

Deno.test({
  name:
    "npm shell launcher: HOOKTAP_INVOKED_AS is npx under npm, `hooktap` from the PATH, else the path typed",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using tmp = await withTmpDir("hooktap_sh_invoked_");
    const cwd = await Deno.realPath(tmp.path);
    const fake = join(cwd, "deno");
    await Deno.writeTextFile(fake, '#!/bin/sh\nprintf "%s\\n" "$HOOKTAP_INVOKED_AS"\n');
    await Deno.chmod(fake, 0o755);
    const bin = join(cwd, "node_modules", ".bin");
    await Deno.mkdir(bin, { recursive: true });
    await Deno.writeTextFile(
      join(bin, "hooktap"),
      postinstall.shellLauncher(launcher, fake, "/pkg/lib", "/x.cjs"),
    );
    await Deno.chmod(join(bin, "hooktap"), 0o755);
    const as = async (command: string, env: Record<string, string>, dir = cwd) => {
      const out = await new Deno.Command("/bin/sh", {
        args: ["-c", `${command} logs`],
        cwd: dir,
        env: { npm_command: "", npm_lifecycle_event: "", PATH: "/usr/bin:/bin", ...env },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      return new TextDecoder().decode(out.stdout).trim();
    };
    assert.equal(await as("./node_modules/.bin/hooktap", {}), "./node_modules/.bin/hooktap");
    assert.equal(await as("node_modules/.bin/hooktap", {}), "node_modules/.bin/hooktap");
    assert.equal(await as(join(bin, "hooktap"), {}), "./node_modules/.bin/hooktap");
    assert.equal(await as("hooktap", { PATH: `${bin}:/usr/bin:/bin` }), "hooktap");
    await Deno.mkdir(join(cwd, "sub"));
    assert.equal(
      await as("../node_modules/.bin/hooktap", {}, join(cwd, "sub")),
      "../node_modules/.bin/hooktap",
    );
    assert.equal(await as(join(bin, "hooktap"), {}, join(cwd, "sub")), join(bin, "hooktap"));
    assert.equal(await as("./node_modules/.bin/hooktap", { npm_lifecycle_event: "dev" }), "npx hooktap");
    assert.equal(await as("hooktap", { npm_command: "exec", PATH: `${bin}:/usr/bin:/bin` }), "npx hooktap");
  },
});

Deno.test("npm launcher: the help and the commands run most run their single-file bundles, others lib/main.js", () => {
  assert.equal(launcher.scriptOf(["logs", "-n", "5"]), "main_logs.js");
  for (const args of [[], ["--help"], ["-h"], ["help", "logs"], ["--version"], ["-V"]]) {
    assert.equal(launcher.scriptOf(args), "main_help.js", args.join(" "));
  }
  const own: [string[], string][] = [
    [["trigger", "github", "push", "--to", "http://127.0.0.1:1/x"], "main_trigger.js"],
    [["trigger", "--list"], "main_trigger.js"],
    [["inspect", "logs"], "main_inspect.js"],
    [["replay", "ID", "--to", "http://127.0.0.1:1/x"], "main_replay.js"],
    [["export", "-o", "x.jsonl"], "main_export.js"],
    [["complete", "--", "logs", "--endpoint", ""], "main_complete.js"],
  ];
  for (const [args, script] of own) assert.equal(launcher.scriptOf(args), script, args.join(" "));
  for (
    const args of [
      ["dev"],
      ["ui"],
      ["mcp"],
      ["hub", "serve"],
      ["--config", "x", "trigger"],
      ["constructor"],
      [
        "toString",
      ],
      ["triggers"],
    ]
  ) {
    assert.equal(launcher.scriptOf(args), "main.js", args.join(" "));
  }
  const scripts = new Set(Object.values(launcher.ENTRIES));
  assert.deepEqual([...scripts].sort(), [
    "main_complete.js",
    "main_export.js",
    "main_help.js",
    "main_inspect.js",
    "main_logs.js",
    "main_replay.js",
    "main_trigger.js",
  ]);
  // Each bundle is named after its command: scripts/pack.ts bundles src/commands/<word>/run.ts into it.
  for (const [word, script] of Object.entries(launcher.ENTRIES)) {
    if (/^[a-z]+$/.test(word) && word !== "help") assert.equal(script, `main_${word}.js`, word);
  }
});

Deno.test({
  name:
    "npm launchers: dev and init in a subdirectory of a Node project with a config are refused, saying where",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using tmp = await withTmpDir("hooktap_sh_above_");
    const root = await Deno.realPath(tmp.path);
    const fake = join(root, "deno");
    await Deno.writeTextFile(fake, "#!/bin/sh\necho RAN\n");
    await Deno.chmod(fake, 0o755);
    const project = join(root, "app");
    const sub = join(project, "src", "routes");
    await Deno.mkdir(sub, { recursive: true });
    await Deno.writeTextFile(join(project, "package.json"), '{ "name": "app" }\n');
    await Deno.writeTextFile(join(project, "hooktap.config.ts"), "export default {};\n");
    // A workspace package of its own (a package.json, no config) is its own project: never refused.
    const pkg = join(project, "packages", "api");
    await Deno.mkdir(join(pkg, "src"), { recursive: true });
    await Deno.writeTextFile(join(pkg, "package.json"), '{ "name": "api" }\n');
    const shell = join(root, "hooktap.cjs");
    await Deno.writeTextFile(
      shell,
      postinstall.shellLauncher(launcher, fake, "/pkg/lib", "/pkg/bin/launcher.cjs"),
    );
    await Deno.chmod(shell, 0o755);
    const node = launcher as unknown as {
      configAbove(args: string[], cwd?: string, home?: string): string | undefined;
      aboveMessage(above: string, command: string, as: string, line: string): string;
    };
    const runShell = async (args: string[], cwd: string) => {
      const out = await new Deno.Command(shell, {
        args,
        cwd,
        env: { HOOKTAP_INVOKED_AS: "", npm_command: "exec" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      return {
        code: out.code,
        stdout: new TextDecoder().decode(out.stdout),
        stderr: new TextDecoder().decode(out.stderr),
      };
    };
    for (const args of [["dev", "--port", "0"], ["init", "--yes"]]) {
      assert.equal(node.configAbove(args, sub), project, args.join(" "));
      const out = await runShell(args, sub);
      assert.equal(out.code, 1, out.stdout);
      assert.equal(out.stdout, "");
      assert.equal(
        out.stderr,
        `error: ${node.aboveMessage(project, args[0]!, "npx hooktap", args.join(" "))}\n`,
      );
      assert.match(out.stderr, new RegExp(`inside the project ${project}, which has one`));
    }
    assert.match(node.aboveMessage(project, "dev", "npx hooktap", "dev"), /cd \S+\/app && npx hooktap dev\./);
    // Where it runs anyway: the project's root, other commands, --config, --help, a workspace package.
    const runs: [string[], string][] = [
      [["dev"], project],
      [["logs"], sub],
      [["dev", "--config", "other.ts"], sub],
      [["dev", "--help"], sub],
      [["init", "-c", "x.ts"], sub],
      [["dev"], join(pkg, "src")],
      [["dev"], root],
    ];
    for (const [args, cwd] of runs) {
      assert.equal(node.configAbove(args, cwd), undefined, `${args.join(" ")} in ${cwd}`);
      const out = await runShell(args, cwd);
      assert.equal(out.code, 0, `${args.join(" ")} in ${cwd}: ${out.stderr}`);
      assert.equal(out.stdout, "RAN\n");
    }
    // The home folder is no project: a stray package.json and config there claim no folder under it.
    const home = join(root, "home");
    const elsewhere = join(home, "code", "goproject");
    await Deno.mkdir(elsewhere, { recursive: true });
    await Deno.writeTextFile(join(home, "package.json"), "{}\n");
    await Deno.writeTextFile(join(home, "hooktap.config.ts"), "export default {};\n");
    assert.equal(node.configAbove(["dev"], elsewhere, "/nowhere"), home, "refused when home is elsewhere");
    assert.equal(node.configAbove(["dev"], elsewhere, home), undefined);
    const atHome = await new Deno.Command(shell, {
      args: ["dev"],
      cwd: elsewhere,
      env: { HOOKTAP_INVOKED_AS: "", npm_command: "exec", HOME: home },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(atHome.stdout), "RAN\n", new TextDecoder().decode(atHome.stderr));
    const notHome = await runShell(["dev"], elsewhere);
    assert.equal(notHome.code, 1, "the same layout outside the home folder is a project");
  },
});

Deno.test({
  name:
    "npm launchers: the refusal's commands quote a project path with a space and arguments the shell splits",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using tmp = await withTmpDir("hooktap_sh_quote_");
    const root = await Deno.realPath(tmp.path);
    const fake = join(root, "deno");
    await Deno.writeTextFile(fake, "#!/bin/sh\necho RAN\n");
    await Deno.chmod(fake, 0o755);
    const project = join(root, "my app's");
    const sub = join(project, "src");
    await Deno.mkdir(sub, { recursive: true });
    await Deno.writeTextFile(join(project, "package.json"), '{ "name": "app" }\n');
    await Deno.writeTextFile(join(project, "hooktap.config.ts"), "export default {};\n");
    const bin = join(root, "bin dir");
    await Deno.mkdir(bin);
    const shell = join(bin, "hooktap");
    await Deno.writeTextFile(
      shell,
      postinstall.shellLauncher(launcher, fake, "/pkg/lib", "/pkg/bin/launcher.cjs"),
    );
    await Deno.chmod(shell, 0o755);
    const node = launcher as unknown as { aboveError(above: string, args: string[], as: string): string };
    const args = ["dev", "--forward-to", "http://localhost:3000/h?a=1&b=2"];
    const quoted = `cd '${
      project.replaceAll("'", `'\\''`)
    }' && '${shell}' dev --forward-to 'http://localhost:3000/h?a=1&b=2'.`;
    // The Node launcher's message, and the shell launcher's (run from a directory with a space).
    assert.ok(node.aboveError(project, args, shell).includes(quoted), node.aboveError(project, args, shell));
    const out = await new Deno.Command(shell, {
      args,
      cwd: sub,
      // Run as from the PATH, not through npm: the suite itself may run under npx (npm_command=exec).
      env: { HOOKTAP_INVOKED_AS: "", npm_command: "", npm_lifecycle_event: "" },
      stderr: "piped",
    })
      .output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 1, stderr);
    assert.equal(stderr, `error: ${node.aboveError(project, args, shell)}\n`);
    // What it says runs there: the command, pasted into a shell, runs dev in the project with the same words.
    const cd = quoted.slice(0, -1).replace(`'${shell}'`, "printf '%s\\n' \"$PWD\"");
    const ran = await new Deno.Command("sh", { args: ["-c", cd], cwd: root, stdout: "piped" }).output();
    assert.equal(
      new TextDecoder().decode(ran.stdout),
      [project, ...args].join("\n") + "\n",
    );
  },
});
