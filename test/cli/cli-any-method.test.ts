/**
 * The protocol-level commands of the built CLI (dist/), as the Inspector's CLI offers them:
 * `request` (any method, the raw result as JSON), `ping`, `complete`, `log-level` and `watch`
 * (subscriptions and list changes until Ctrl-C), against the bundled mock stdio server with a
 * scenario that answers a subscription and a log level with notifications.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli-in-process.js';
import { cli, killAll, node, root, until } from '../support/cli-process.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('mcpwire-any-method-')();
const scenario = path.join(dir, 'scenario.json');
writeFileSync(
  scenario,
  JSON.stringify({
    extends: 'default',
    behavior: {
      methods: {
        'resources/subscribe': {
          notifications: [
            { method: 'notifications/resources/updated', params: { uri: 'mem://readme' } },
            { method: 'notifications/tools/list_changed' },
          ],
        },
        'logging/setLevel': { notifications: [{ method: 'notifications/message', params: { level: 'debug', logger: 'db', data: 'hello at debug' } }] },
      },
    },
  }),
);
const server = ['--stdio', `${node} ${path.join(root, 'mock-servers/stdio-server.mjs')} ${scenario}`, '--no-daemon'];
const pids: number[] = [];
afterAll(() => killAll(pids));

describe('CLI: every method', { timeout: 60_000 }, () => {
  it('request <method> [params]: any method, its raw result as JSON; params inline or from @file; a server error fails', async () => {
    const list = await runCliHere([...server, 'request', 'tools/list']);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain('echo');
    const file = path.join(dir, 'params.json');
    writeFileSync(file, JSON.stringify({ uri: 'mem://readme' }));
    const read = await runCliHere([...server, 'request', 'resources/read', `@${file}`]);
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toMatchObject({ contents: [{ uri: 'mem://readme', text: 'Hello from the mock server.' }] });
    const inline = await runCliHere([...server, 'request', 'tools/call', '{"name":"add","arguments":{"a":2,"b":3}}']);
    expect(JSON.parse(inline.stdout)).toMatchObject({ content: [{ type: 'text', text: '5' }] });
    const unknown = await runCliHere([...server, 'request', 'no/such-method']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/-32601/);
    const bad = await runCliHere([...server, 'request', 'tools/list', '[1]']);
    expect(bad.code).toBe(2);
  });

  it('ping: the round trip, or --json {ok, ms}', async () => {
    const r = await runCliHere([...server, 'ping', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, ms: expect.any(Number) });
  });

  it('complete --prompt / --resource: the values for a prefix, one a line; neither or both is a usage error', async () => {
    const p = await runCliHere([...server, 'complete', '--prompt', 'greet', 'name', 'Al']);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toBe('Alice\nAlan\n');
    const t = await runCliHere([...server, 'complete', '--resource', 'mem://notes/{id}', 'id', '4', '--json']);
    expect(JSON.parse(t.stdout)).toMatchObject({ completion: { values: ['42'] } });
    expect((await runCliHere([...server, 'complete', 'name', 'Al'])).code).toBe(2);
  });

  it('log-level <level>: set, and the log messages of the session on stderr; an unknown level is a usage error', async () => {
    const r = await runCliHere([...server, 'log-level', 'debug']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/set to debug/);
    expect(r.stderr).toMatch(/log debug db: hello at debug/);
    const bad = await runCliHere([...server, 'log-level', 'loud']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown level "loud"/);
  });

  it('watch <uri>: prints the updates and list changes until Ctrl-C, then exits 130', async () => {
    const child = spawn(node, [cli, ...server, 'watch', 'mem://readme', '--json'], { cwd: root });
    pids.push(child.pid!);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    expect(await until(() => out.includes('list_changed'), 20_000), out).toBe(true);
    const events = out.trim().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(events).toEqual([{ event: 'updated', uri: 'mem://readme' }, { event: 'list_changed', list: 'tools' }]);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
  });

  it('--help lists them', async () => {
    const r = await runCliHere(['--help']);
    for (const c of ['request', 'ping', 'complete', 'log-level', 'watch']) expect(r.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
  });
});
