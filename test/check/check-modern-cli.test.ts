/**
 * `mcpwire check --protocol-version <v>` and `--all-versions` as CI uses them (the built CLI,
 * real server processes): every check listed with the revisions it applies to, a refused
 * version reported with the versions the server supports (exit 1, JSON and JUnit saying so),
 * and one report per version of a dual server.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli-in-process.js';
import { type CliRun } from '../support/cli-process.js';
import { findAll, parseXml } from '../support/xml.js';
import { tempDirs } from '../support/temp-dirs.js';

/** Fresh folders, removed after the file's last test. */
const freshDir = tempDirs('mcpwire-check-modern-cli-');

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const node = JSON.stringify(process.execPath);
const MODERN = `${node} ${JSON.stringify(join(ROOT, 'mock-servers/modern/stdio-server.mjs'))}`;
const SDK_DUAL = `${node} ${JSON.stringify(join(ROOT, 'mock-servers/interop/sdk-v2-server.mjs'))} stdio`;
const T = { timeout: 120_000 };

async function run(args: string[]): Promise<CliRun & { cwd: string }> {
  const cwd = freshDir();
  const r = await runCliHere(args, { cwd, env: { ...process.env, HOME: cwd, XDG_CONFIG_HOME: join(cwd, '.config') }, timeoutMs: 110_000 });
  return { ...r, cwd };
}

describe('mcpwire check and protocol revisions (CLI)', () => {
  it('--list: every check states its revisions; the 2026-07-28 ones and the handshake ones apart', async () => {
    const r = await run(['check', '--list', '--json']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<{ id: string; revisions: string[] }>;
    for (const c of list) expect(c.revisions.length, c.id).toBeGreaterThan(0);
    expect(list.find((c) => c.id === 'modern.discover')?.revisions).toEqual(['2026-07-28']);
    expect(list.find((c) => c.id === 'lifecycle.before-initialize')?.revisions).toEqual(expect.arrayContaining(['2025-11-25', '2024-11-05']));
    expect(list.find((c) => c.id === 'lifecycle.before-initialize')?.revisions).not.toContain('2026-07-28');
    const text = await run(['check', '--list']);
    expect(text.stdout).toMatch(/^modern\.discover\s+MUST\s+server\.discover#1\s+2026-07-28\s+/m);
    expect(text.stdout).toMatch(/^lifecycle\.before-initialize\s+SHOULD\s+basic\.lifecycle#1\s+2024-11-05 … 2025-11-25\s+/m);
  });

  it('--protocol-version 2025-11-25 on a modern-only server: exit 1, a report naming the versions it supports (text, JSON, JUnit)', T, async () => {
    const text = await run(['check', '--stdio', MODERN, '--protocol-version', '2025-11-25']);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('NOT CHECKED: initialize refused protocol version 2025-11-25 (error -32022); the server supports 2026-07-28');
    const json = await run(['check', '--stdio', MODERN, '--protocol-version', '2025-11-25', '--json', '--junit', 'out.xml']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ era: 'handshake', refused: { requested: '2025-11-25', supported: ['2026-07-28'] }, results: [] });
    const xml = parseXml(readFileSync(join(json.cwd, 'out.xml'), 'utf8'));
    expect(findAll(xml, 'error').map((e) => e.attrs.type)).toEqual(['version-refused']);
  });

  it('--all-versions on a dual server: one report per era (2026-07-28, then 2025-11-25), named by version', T, async () => {
    const r = await run(['check', '--stdio', SDK_DUAL, '--all-versions', '--only', 'modern.discover,lifecycle.initialize-result', '--json']);
    const out = JSON.parse(r.stdout) as { servers: Array<{ id: string; report: { era: string; protocolVersion: string } }>; exitCode: number };
    expect(out.servers.map((s) => [s.id, s.report.era, s.report.protocolVersion])).toEqual([
      ['stdio@2026-07-28', 'modern', '2026-07-28'],
      ['stdio@2025-11-25', 'handshake', '2025-11-25'],
    ]);
    expect(out.exitCode).toBe(0);
    expect(r.code).toBe(0);
  });

  it("a configured server's protocol_version is the version it is checked at (as the client speaks to it)", T, async () => {
    const dir = freshDir();
    const config = join(dir, 'config.json');
    const args = [join(ROOT, 'mock-servers/interop/sdk-v2-server.mjs'), 'stdio'];
    writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: { dual: { transport: 'stdio', command: process.execPath, args, protocol_version: '2025-11-25' } } } }));
    const pinned = await run(['check', 'dual', '--config', config, '--only', 'modern.discover,lifecycle.initialize-result', '--json']);
    expect(JSON.parse(pinned.stdout)).toMatchObject({ servers: [{ id: 'dual', report: { era: 'handshake', protocolVersion: '2025-11-25' } }] });
    const asked = await run(['check', 'dual', '--config', config, '--only', 'modern.discover', '--protocol-version', '2026-07-28', '--json']);
    expect(JSON.parse(asked.stdout)).toMatchObject({ servers: [{ id: 'dual', report: { era: 'modern', protocolVersion: '2026-07-28' } }] });
  });

  it('usage errors exit 2: both flags, a version mcpwire does not speak', async () => {
    expect((await run(['check', '--stdio', MODERN, '--all-versions', '--protocol-version', '2026-07-28'])).code).toBe(2);
    const bad = await run(['check', '--stdio', MODERN, '--protocol-version', '2020-01-01']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('mcpwire speaks 2026-07-28, 2025-11-25');
  });
});
