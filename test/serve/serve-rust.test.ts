/**
 * examples/rust-host: a Rust program as an MCP host through `mcpwire serve` over stdio. Built
 * once with Debian's toolchain (/usr/bin/cargo 1.65, /usr/bin/rustc 1.63) offline from Debian's
 * packaged serde_json (.ci/run installs cargo, rustc and librust-serde-json-dev), then run once
 * against real servers — the demo server (`mcpwire demo --server`) and the scripted mock — with a
 * workspace whose one server the user trusted (`mcpwire trust`) before the repository added
 * another. Each behaviour is asserted from what the program printed and what the servers got;
 * `cargo test` runs the client's own unit tests (bounded lines, responses to their callers).
 * Skipped, saying so, only where /usr/bin/cargo is absent; the offline setup is checked either way.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildDir, version } from '../support/built-examples.js';
import { cli, node, root, runCli } from '../support/cli-process.js';
import { tempDirs } from '../support/temp-dirs.js';

const example = path.join(root, 'examples/rust-host');
const mockJs = path.join(root, 'mock-servers/stdio-server.mjs');
const cargo = '/usr/bin/cargo';
const hasCargo = fs.existsSync(cargo);
const tmp = tempDirs('mcpwire-rust-host-');
/** A flaky server's credential: it writes it to stderr as it dies; nothing may show it. */
const SECRET = 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e';

describe('examples/rust-host: the offline build setup', () => {
  it("depends on serde_json alone, resolved from Debian's packaged crates with no registry", () => {
    const manifest = fs.readFileSync(path.join(example, 'Cargo.toml'), 'utf8');
    const deps = /\[dependencies\]\n([^[]*)/.exec(manifest)![1];
    expect(deps.split('\n').filter((l) => /^\w/.test(l))).toEqual(['serde_json = "1"']);
    expect(manifest).toMatch(/^edition = "2021"$/m);
    const config = fs.readFileSync(path.join(example, '.cargo/config.toml'), 'utf8');
    expect(config).toMatch(/\[source\.crates-io\]\nreplace-with = "debian-packages"/);
    expect(config).toMatch(/\[source\.debian-packages\]\ndirectory = "\/usr\/share\/cargo\/registry"/);
    const lock = fs.readFileSync(path.join(example, 'Cargo.lock'), 'utf8');
    expect([...lock.matchAll(/^name = "([^"]+)"$/gm)].map((m) => m[1])).toEqual(['itoa', 'rust-host', 'ryu', 'serde', 'serde_json']);
  });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ws: string;
  alphaRecord: string;
  fetcherRecord: string;
}

/** The example's shared build folder for Debian's rustc and cargo (asked for once). */
let built: string | undefined;
const rustBuild = () => (built ??= buildDir('rust-host', `${version('/usr/bin/rustc', ['--version'])} ${version(cargo, ['--version'])}`));

/**
 * Runs `cargo <command> --offline --locked` on the example with Debian's cargo and rustc only; its
 * stdout. The build goes to the example's shared build folder (test/support/built-examples.ts:
 * keyed by its source and rustc's version), where cargo reuses what an earlier build of the same
 * source compiled and still runs the tests.
 */
function cargoRun(command: string, timeout: number): Promise<string> {
  const dir = rustBuild();
  // No rustup override or cargo setting of this machine leaks in.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CARGO|RUSTUP)_|^RUST(C|DOC|FLAGS)/.test(k)));
  Object.assign(env, { PATH: `/usr/bin:${process.env.PATH ?? ''}`, RUSTC: '/usr/bin/rustc', RUSTDOC: '/usr/bin/rustdoc', CARGO_HOME: path.join(dir, 'cargo-home'), CARGO_TARGET_DIR: path.join(dir, 'target') });
  return new Promise((resolve, reject) =>
    execFile(cargo, [command, '--offline', '--locked', '--quiet'], { cwd: example, env, timeout, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`cargo ${command} of examples/rust-host failed: ${err.message}\n${stdout}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

const mock = (tools: unknown[], env: Record<string, string> = {}) => ({ transport: 'stdio', command: node, args: [mockJs], env: { MOCK_SCENARIO_JSON: JSON.stringify({ tools }), ...env } });
const writeJson = (file: string, value: unknown) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2));
};

/**
 * The user's own servers (the demo server; `alpha`, the mock with progress and echo; `flaky`, whose
 * tool makes it die) and a workspace: `notes` trusted by the user, then `fetcher` added by the
 * repository. The program starts the gateway in the workspace as its engine.
 */
async function runExample(bin: string, dir: string): Promise<Run> {
  const ws = path.join(dir, 'ws');
  const alphaRecord = path.join(dir, 'alpha.jsonl');
  const fetcherRecord = path.join(dir, 'fetcher.jsonl');
  const home = path.join(dir, 'home');
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), MCPWIRE_CONFIG_PATH: path.join(home, 'mcpwire/config.json'), MCPWIRE_TRACE: '' };
  const crash = { code: 3, stderr: `flaky: lost the API (FLAKY_API_TOKEN=${SECRET})\n` };
  writeJson(env.MCPWIRE_CONFIG_PATH, {
    version: 1,
    mcp: {
      serve_names: 'host', servers: {
        demo: { transport: 'stdio', command: node, args: [cli, 'demo', '--server'] },
        alpha: mock(['progress', 'echo'], { MOCK_RECORD: alphaRecord }),
        flaky: mock([{ name: 'crash', description: 'Dies mid-call', behavior: { crash } }], { FLAKY_API_TOKEN: SECRET }),
      },
    },
  });
  const notes = mock(['echo']);
  writeJson(path.join(ws, '.mcpwire/config.json'), { version: 1, mcp: { serve_names: 'host', servers: { notes } } });
  const trusted = await runCli(['trust', ws], { cwd: ws, env });
  expect(trusted.code, trusted.stderr).toBe(0);
  writeJson(path.join(ws, '.mcpwire/config.json'), { version: 1, mcp: { serve_names: 'host', servers: { notes, fetcher: mock(['echo'], { MOCK_RECORD: fetcherRecord }) } } });

  const args = ['--workspace', ws, '--progress', 'mcp_demo_progress', '--cancel', 'mcp_alpha_progress', '--echo', 'mcp_alpha_echo', '--', node, cli, 'serve'];
  const child = spawn(bin, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(killer);
  return { code, stdout, stderr, ws, alphaRecord, fetcherRecord };
}

const skipped = hasCargo ? '' : ' — skipped: /usr/bin/cargo is absent (apt install cargo rustc librust-serde-json-dev, as .ci/run does)';

describe.skipIf(!hasCargo)(`examples/rust-host built with Debian's cargo and run against mcpwire serve${skipped}`, () => {
  let run: Run;
  beforeAll(async () => {
    await cargoRun('build', 840_000);
    run = await runExample(path.join(rustBuild(), 'target/debug/rust-host'), fs.realpathSync(tmp()));
  }, 900_000);

  it('runs through and closes the gateway: exit 0, the gateway exits 0 when its stdin closes', () => {
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/^initialized: mcpwire-gateway \S+, protocol 2025-11-25$/m);
    expect(run.stdout).toMatch(/^gateway closed: exit status: 0$/m);
  });

  it("lists the configured servers' tools under the gateway's names, and the gateway's own", () => {
    const listed = [...run.stdout.matchAll(/^ {2}(\S+)$/gm)].map((m) => m[1]);
    expect(run.stdout).toMatch(new RegExp(`^tools: ${listed.length}$`, 'm'));
    for (const tool of ['echo', 'add', 'progress', 'structured', 'weather']) expect(listed.some((t) => t.startsWith(`mcp_demo_${tool}_`)), tool).toBe(true);
    expect(listed.filter((t) => t.startsWith('mcp_alpha_')).length).toBe(2);
    expect(listed).toContain('mcpwire_status');
  });

  it('a call with a progress token gets each step, then its result', () => {
    for (const i of [1, 2, 3]) expect(run.stdout).toMatch(new RegExp(`^progress: ${i}/3 step ${i} of 3$`, 'm'));
    expect(run.stdout).toMatch(/^result of mcp_demo_progress_\w+: done 3 steps \(isError false\)$/m);
  });

  it('a cancelled call gets no response, and the cancel reaches the server naming its own request', () => {
    expect(run.stdout).toMatch(/^cancelled mcp_alpha_progress_\w+ after progress 1\/600: no response, as the spec says$/m);
    const got: { id?: unknown; method?: string; params?: { requestId?: unknown; name?: string; arguments?: { steps?: number } } }[] = fs
      .readFileSync(run.alphaRecord, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const long = got.find((m) => m.method === 'tools/call' && m.params?.arguments?.steps === 600);
    expect(long).toBeDefined();
    const cancel = got.findIndex((m) => m.method === 'notifications/cancelled' && m.params?.requestId === long!.id);
    // Sent when the program cancelled, not when the gateway closed: before the program's next call to alpha.
    const next = got.findIndex((m) => m.method === 'tools/call' && m.params?.name === 'echo');
    expect(cancel).toBeGreaterThan(-1);
    expect(next).toBeGreaterThan(cancel);
  });

  it("a server that crashes mid-call: the call is the gateway's error result, the secret redacted, and the host carries on", () => {
    expect(run.stdout).toMatch(/^result of mcp_flaky_crash_\w+: MCP tool flaky\/crash failed: .*server process exited with code 3; stderr tail: flaky: lost the API \(FLAKY_API_TOKEN=\[redacted\]\).* \(isError true\)$/m);
    expect(run.stdout).toMatch(/^after the crash, result of mcp_alpha_echo_\w+: still here \(isError false\)$/m);
    const after = run.stdout.slice(run.stdout.indexOf('status after the crash:'));
    expect(after).toMatch(/^ {2}alpha: ready \(2 tools\)$/m);
    expect(after).toMatch(/^ {2}demo: ready \(5 tools\)$/m);
    // Not in the results, the status or the gateway's log lines (its stderr is the program's).
    expect(run.stdout).not.toContain(SECRET);
    expect(run.stderr).not.toContain(SECRET);
  });

  it("the client's own tests pass (cargo test): lines bounded in bytes, a response to its caller, an error as text", { timeout: 600_000 }, async () => {
    const out = await cargoRun('test', 540_000);
    expect(out).toMatch(/test result: ok\. 4 passed; 0 failed/);
  });

  it('a workspace server the user did not trust is not started and the status says why; the trusted one is ready', () => {
    const status = run.stdout.slice(run.stdout.indexOf('status:'), run.stdout.indexOf('progress:'));
    expect(status).toMatch(/^ {2}notes: ready \(1 tool\)$/m);
    expect(status).toContain(`  fetcher: untrusted (project server not trusted: run \`mcpwire trust ${run.ws}\` to allow project servers to start)`);
    expect(run.stdout).toMatch(/^ {2}mcp_notes_echo_\w+$/m);
    expect(run.stdout).not.toMatch(/mcp_fetcher_/);
    expect(fs.existsSync(run.fetcherRecord)).toBe(false); // never spawned: it would record its initialize
  });
});
