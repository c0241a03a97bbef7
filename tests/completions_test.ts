import assert from "node:assert/strict";
import { join } from "node:path";
import { cliArgs, DENO_JSON, runCli, withTmpDir, writeFile } from "./_helpers.ts";
import { captureEvents, MULTI_CONFIG } from "./_capture.ts";

const READ_ONLY = ["--allow-read=."];

Deno.test("`hooktap completions bash|zsh|fish` prints a script that asks `hooktap complete` at each TAB, with read permission only", async () => {
  await using tmp = await withTmpDir();
  const markers = {
    bash: /complete -o default .*-F _hooktap_complete hooktap/,
    zsh: /^#compdef hooktap/,
    fish: /complete -c hooktap/,
  };
  for (const [shell, marker] of Object.entries(markers)) {
    const r = await runCli(["completions", shell], { cwd: tmp.path, permissions: READ_ONLY });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    assert.match(r.stdout, marker, shell);
    assert.match(r.stdout, /hooktap complete --/, shell);
    assert.doesNotMatch(r.stdout, /readonly|_get_comp_words_by_ref/, shell);
  }
  const bad = await runCli(["completions", "tcsh"], { cwd: tmp.path, permissions: READ_ONLY });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /<shell> cannot be "tcsh": use one of bash, zsh, fish\./);
});

Deno.test("`hooktap completions --help` names installs that put `hooktap` on the PATH today (JSR is not published)", async () => {
  await using tmp = await withTmpDir();
  const r = await runCli(["completions", "--help"], { cwd: tmp.path, permissions: READ_ONLY });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /jsr:/);
  assert.match(r.stdout, /npm install -g hooktap, or deno task install in a clone/);
  assert.match(r.stdout, /not `npx hooktap \.\.\.`/);
});

async function words(cwd: string, ...args: string[]): Promise<string[]> {
  const r = await runCli(["complete", "--", ...args], { cwd, permissions: READ_ONLY });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout === "" ? [] : r.stdout.trimEnd().split("\n").map((l) => l.split("\t")[0]!);
}

Deno.test("`hooktap complete` offers commands, options, the config's endpoint names and recent event ids", async () => {
  await using tmp = await withTmpDir();
  const ids = await captureEvents(tmp.path, [{ path: "/webhook", body: "a" }, {
    path: "/github",
    body: "b",
  }]);
  assert.deepEqual(await words(tmp.path, "inspect", "--endpoint", ""), ["default", "github", "ping"]);
  assert.deepEqual(await words(tmp.path, "logs", "--endpoint", "g"), ["github"]);
  assert.deepEqual(await words(tmp.path, "logs", "--endpoint=g"), ["--endpoint=github"]);
  const commands = await words(tmp.path, "");
  for (const c of ["init", "dev", "logs", "inspect", "replay", "completions", "help"]) {
    assert.ok(commands.includes(c), c);
  }
  assert.ok(!commands.includes("complete"));
  assert.deepEqual(await words(tmp.path, "replay", ""), [ids[1], ids[0]]);
  // A short prefix of the ULID part completes to the ULID part, which is what was typed.
  const ulid = ids[0]!.slice(13);
  assert.deepEqual(await words(tmp.path, "replay", ulid.slice(0, 24).toLowerCase()), [ulid]);
  assert.deepEqual(await words(tmp.path, "inspect", "--json", ids[1]!.slice(0, 30)), [ids[1]]);
  assert.ok((await words(tmp.path, "logs", "--")).includes("--follow"));
  assert.deepEqual(await words(tmp.path, "completions", "z"), ["zsh"]);
  assert.deepEqual(await words(tmp.path, "replay", "x", "--method", "p"), ["POST", "PUT", "PATCH"]);
});

/** A temp project with one stored event and `hooktap` (this checkout) on PATH. */
async function projectWithHooktapOnPath(
  dir: string,
): Promise<{ ids: string[]; env: Record<string, string> }> {
  const ids = await captureEvents(dir, [{ path: "/webhook", body: "a" }]);
  const bin = join(dir, "bin");
  await writeFile(
    bin,
    "hooktap",
    `#!/bin/sh\nexec ${JSON.stringify(Deno.execPath())} ${
      cliArgs(READ_ONLY, []).map((a) => JSON.stringify(a)).join(" ")
    } "$@"\n`,
  );
  await Deno.chmod(join(bin, "hooktap"), 0o755);
  return { ids, env: { PATH: `${bin}:/usr/bin:/bin`, NO_COLOR: "1", HOME: dir } };
}

async function shell(
  name: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<string[]> {
  const out = await new Deno.Command(name, { args, cwd, env, stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  assert.equal(dec.decode(out.stderr), "", `${name} printed errors`);
  assert.equal(out.code, 0);
  return dec.decode(out.stdout).trimEnd().split("\n");
}

function hasShell(name: string): boolean {
  try {
    new Deno.Command(name, { args: ["-c", "exit 0"] }).outputSync();
    return true;
  } catch {
    return false;
  }
}

Deno.test("the bash script completes in plain bash (no bash-completion package) and can be sourced twice", async () => {
  await using tmp = await withTmpDir();
  const { ids, env } = await projectWithHooktapOnPath(tmp.path);
  const script = (await runCli(["completions", "bash"], { cwd: tmp.path, permissions: READ_ONLY })).stdout;
  await writeFile(tmp.path, "hooktap.bash", script);
  const complete = (line: string) =>
    shell(
      "bash",
      [
        "--norc",
        "--noprofile",
        "-c",
        `source ./hooktap.bash; source ./hooktap.bash
COMP_LINE=${JSON.stringify(line)}; COMP_POINT=\${#COMP_LINE}
_hooktap_complete
printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      tmp.path,
      env,
    );
  assert.deepEqual(await complete("hooktap lo"), ["logs"]);
  assert.deepEqual(await complete("hooktap logs --endpoint gi"), ["github"]);
  assert.deepEqual(await complete(`hooktap replay ${ids[0]!.slice(13, 20)}`), [ids[0]!.slice(13)]);
  // After "--endpoint=" bash replaces only the part after "=".
  assert.deepEqual(await complete("hooktap logs --endpoint=pi"), ["ping"]);
});

Deno.test({
  name: "the fish script completes commands, endpoint names and ULID prefixes in real fish",
  ignore: !hasShell("fish"),
  fn: async () => {
    await using tmp = await withTmpDir();
    const { ids, env } = await projectWithHooktapOnPath(tmp.path);
    const script = (await runCli(["completions", "fish"], { cwd: tmp.path, permissions: READ_ONLY })).stdout;
    await writeFile(tmp.path, "hooktap.fish", script);
    const complete = (line: string) =>
      shell(
        "fish",
        ["--no-config", "-c", `source hooktap.fish; complete -C ${JSON.stringify(line)}`],
        tmp.path,
        env,
      );
    assert.deepEqual((await complete("hooktap lo")).map((l) => l.split("\t")[0]), ["logs"]);
    assert.deepEqual((await complete("hooktap logs --endpoint gi")).map((l) => l.split("\t")[0]), ["github"]);
    const ulid = ids[0]!.slice(13);
    assert.deepEqual((await complete(`hooktap replay ${ulid.slice(0, 24)}`)).map((l) => l.split("\t")[0]), [
      ulid,
    ]);
  },
});

Deno.test({
  name: "the zsh script hands zsh's completion system the candidates with their descriptions",
  ignore: !hasShell("zsh"),
  fn: async () => {
    await using tmp = await withTmpDir();
    const { env } = await projectWithHooktapOnPath(tmp.path);
    const script = (await runCli(["completions", "zsh"], { cwd: tmp.path, permissions: READ_ONLY })).stdout;
    await writeFile(tmp.path, "_hooktap", script);
    // compsys's _describe and _files need a live line editor: stand-ins print what they are given.
    const probe = `compdef() { :; }
_describe() { print -rl -- "\${(@P)4}"; }
_files() { print -r -- FILES; }
source ./_hooktap
words=(hooktap logs --endpoint gi); CURRENT=4; _hooktap
words=(hooktap lo); CURRENT=2; _hooktap
words=(hooktap logs --config ''); CURRENT=4; _hooktap`;
    const lines = await shell("zsh", ["-f", "-c", probe], tmp.path, env);
    assert.deepEqual(lines, ["github:endpoint", lines[1], "FILES"]);
    assert.match(lines[1]!, /^logs:List the newest stored events/);
  },
});

Deno.test("every command's --help has a description and an example, and --version prints deno.json's version", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", MULTI_CONFIG);
  for (const command of ["init", "dev", "logs", "inspect", "replay", "completions"]) {
    const r = await runCli([command, "--help"], { cwd: tmp.path, permissions: READ_ONLY });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^Usage: hooktap ${command} .*\\n\\n\\S.{10,}\\n`), command);
    assert.match(r.stdout, /\nExamples?:\n {2}(hooktap|source|#)/, command);
    const viaHelp = await runCli(["help", command], { cwd: tmp.path, permissions: READ_ONLY });
    assert.equal(viaHelp.stdout, r.stdout);
  }
  const version = JSON.parse(await Deno.readTextFile(DENO_JSON)).version;
  const v = await runCli(["--version"], { cwd: tmp.path, permissions: READ_ONLY });
  assert.equal(v.stdout, `${version}\n`);
});

Deno.test("usage mistakes exit 2 and point at --help", async () => {
  await using tmp = await withTmpDir();
  const cases: [string[], RegExp][] = [
    [["foo"], /unknown command 'foo'\. Run `hooktap --help` for the commands\./],
    [["lgos"], /unknown command 'lgos' \(did you mean logs\?\)/],
    [
      ["logs", "--limt", "3"],
      /unknown option '--limt' \(did you mean --limit\?\)\. Run `hooktap logs --help`/,
    ],
    [["logs", "-z"], /unknown option '-z'\. Run `hooktap logs --help`/],
    [["logs", "--limit"], /option '-n, --limit <count>' needs a value/],
    [["replay", "abc", "--rate", "5"], /--rate paces a bulk replay/],
    [["replay"], /Give an event id, or filters to replay many/],
    [["replay", "--to", "http://localhost:1/"], /Give an event id, or filters to replay many/],
    [["logs", "extra"], /too many arguments for 'logs': "extra"/],
    [["dev", "--port", "abc"], /--port must be a whole number from 0 to 65535/],
  ];
  for (const [args, expected] of cases) {
    const r = await runCli(args, {
      cwd: tmp.path,
      permissions: ["--allow-read=.", "--allow-write=.hooktap"],
    });
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, expected, args.join(" "));
  }
});

Deno.test("`hooktap complete` keeps the config's endpoint names in .hooktap and loads the config again when it changes", async () => {
  await using tmp = await withTmpDir();
  await Deno.mkdir(join(tmp.path, ".hooktap"));
  const config = (names: string[]) =>
    `export default { port: 8787, endpoints: [${
      names.map((n) => `{ name: "${n}", path: "/${n}", method: "POST" }`).join(", ")
    }] };\n`;
  await writeFile(tmp.path, "hooktap.config.ts", config(["alpha", "beta"]));
  const rw = ["--allow-read=.", "--allow-write=.hooktap"];
  const complete = async (permissions: string[]) => {
    const r = await runCli(["complete", "--", "logs", "--endpoint", ""], { cwd: tmp.path, permissions });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.trimEnd().split("\n").map((l) => l.split("\t")[0]);
  };
  assert.deepEqual(await complete(rw), ["alpha", "beta"]);
  const cached = JSON.parse(await Deno.readTextFile(join(tmp.path, ".hooktap/completion.json")));
  assert.deepEqual(cached.names, ["alpha", "beta"]);
  // An edit (another size, another time) is seen at the next TAB.
  await writeFile(tmp.path, "hooktap.config.ts", config(["alpha", "gamma", "delta"]));
  assert.deepEqual(await complete(rw), ["alpha", "delta", "gamma"]);
  // Read-only: the names still come (from the config), nothing is written.
  await Deno.remove(join(tmp.path, ".hooktap/completion.json"));
  assert.deepEqual(await complete(READ_ONLY), ["alpha", "delta", "gamma"]);
  await assert.rejects(Deno.stat(join(tmp.path, ".hooktap/completion.json")));
});
