/**
 * The era on the command line (built CLI, dist/): `status --json`, the `status` table and the
 * `status <id>` view show each configured server's era and protocol version; the config's `protocol_version` and the global
 * `--protocol-version` pin it (no probe). Real child processes: the dual-era modern mock.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli-in-process.js';
import { MODERN_SERVER as DUAL } from '../support/recorded-mock.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'era-cli-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the era in the CLI', () => {
  it('status --json shows era and protocolVersion; protocol_version in the config pins them', async () => {
    const config = path.join(dir, 'mcp.json');
    const entry = (extra: object) => ({ transport: 'stdio', command: process.execPath, args: [DUAL, 'dual'], ...extra });
    fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: { found: entry({}), pinned: entry({ protocol_version: '2025-06-18' }) } } }));
    const r = await runCliHere(['--config', config, 'status', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<{ id: string; era: string | null; protocol_version: string | null }>;
    const byId = Object.fromEntries(rows.map((s) => [s.id, [s.era, s.protocol_version]]));
    expect(byId).toEqual({ found: ['modern', '2026-07-28'], pinned: ['handshake', '2025-06-18'] });
  });

  it('status (the table) shows each server protocol version; status <id> shows era and protocol_version', async () => {
    const config = path.join(dir, 'mcp-table.json');
    const entry = (extra: object) => ({ transport: 'stdio', command: process.execPath, args: [DUAL, 'dual'], ...extra });
    fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: { found: entry({}), pinned: entry({ protocol_version: '2025-06-18' }) } } }));
    const table = await runCliHere(['--config', config, 'status'], { env: { ...process.env, COLUMNS: '200' } });
    expect(table.code, table.stderr).toBe(0);
    const [head, , ...rows] = table.stdout.trim().split('\n');
    expect(head).toMatch(/\bprotocol\b/);
    expect(rows.find((l) => l.startsWith('found '))).toMatch(/\b2026-07-28\b/);
    expect(rows.find((l) => l.startsWith('pinned '))).toMatch(/\b2025-06-18\b/);
    const detail = await runCliHere(['--config', config, 'status', 'found']);
    expect(detail.code, detail.stderr).toBe(0);
    expect(detail.stdout).toMatch(/^era +modern$/m);
    expect(detail.stdout).toMatch(/^protocol_version +2026-07-28$/m);
  });

  it('--protocol-version pins an ad-hoc server: the handshake first, at that version', async () => {
    const record = path.join(dir, 'in.jsonl');
    const r = await runCliHere(['--stdio', `"${process.execPath}" "${DUAL}" dual`, '--env', `MOCK_RECORD=${record}`, '--protocol-version', '2025-06-18', 'tools', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const first = JSON.parse(fs.readFileSync(record, 'utf8').split('\n')[0]!) as { method: string; params: { protocolVersion: string } };
    expect([first.method, first.params.protocolVersion]).toEqual(['initialize', '2025-06-18']);
  });

  it('protocol_version in the config pins every command that connects to the entry (call, tools, read): the handshake first', async () => {
    const config = path.join(dir, 'pinned.json');
    const record = path.join(dir, 'pinned-in.jsonl');
    const entry = { transport: 'stdio', command: process.execPath, args: [DUAL, 'dual'], env: { MOCK_RECORD: record }, protocol_version: '2025-06-18' };
    fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: { pinned: entry } } }));
    for (const argv of [['call', 'pinned', 'echo', 'text=hi'], ['tools', 'pinned', '--json'], ['read', 'pinned', 'mem://readme']]) {
      fs.rmSync(record, { force: true });
      const r = await runCliHere(['--config', config, '--no-daemon', ...argv]);
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
      const first = JSON.parse(fs.readFileSync(record, 'utf8').split('\n')[0]!) as { method: string; params: { protocolVersion: string } };
      expect([argv[0], first.method, first.params.protocolVersion]).toEqual([argv[0], 'initialize', '2025-06-18']);
    }
  });
});
