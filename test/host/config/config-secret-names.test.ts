/**
 * `mcp.secret_names`: names whose values are secrets in every server's entry, beside each entry's
 * own `secret_names` — a value that looks like configuration is still hidden when the config says so.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/host/config/load.js';
import { configuredSecrets } from '../../../src/trace/configured-secrets.js';

const text = (mcp: Record<string, unknown>) => JSON.stringify({ mcp });

describe('host-wide secret_names', () => {
  it('marks the named env and header values secret in every entry, added to the entry\'s own list', () => {
    const r = resolveConfig([
      {
        kind: 'native' as const,
        scope: 'global' as const,
        file: '/tmp/mcp.json',
        text: text({
          secret_names: ['WORKSPACE', 'X-Tenant'],
          servers: {
            a: { transport: 'stdio', command: 'node', env: { WORKSPACE: 'acme-widgets', MODE: 'fast' }, secret_names: ['MODE'] },
            b: { transport: 'http', url: 'http://127.0.0.1:1/mcp', headers: { 'X-Tenant': 'blue-team' } },
          },
        }),
      },
    ]);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const a = r.servers.find((s) => s.id === 'a')!.config;
    const b = r.servers.find((s) => s.id === 'b')!.config;
    expect([...(a.secretNames ?? [])].sort()).toEqual(['MODE', 'WORKSPACE', 'X-Tenant']);
    expect(configuredSecrets({ env: a.env, secretNames: a.secretNames })).toEqual(expect.arrayContaining(['acme-widgets', 'fast']));
    expect(configuredSecrets({ headers: b.headers, secretNames: b.secretNames })).toContain('blue-team');
    expect(r.host?.secretNames).toEqual(['WORKSPACE', 'X-Tenant']);
  });

  it('a secret_names that is not a list of names is an error naming the field, and changes nothing', () => {
    const r = resolveConfig([
      { kind: 'native' as const, scope: 'global' as const, file: '/tmp/mcp.json', text: text({ secret_names: 'WORKSPACE', servers: { a: { transport: 'stdio', command: 'node', env: { WORKSPACE: 'acme' } } } }) },
    ]);
    expect(r.diagnostics.some((d) => d.severity === 'error' && d.field === 'mcp.secret_names')).toBe(true);
    expect(r.servers[0].config.secretNames).toBeUndefined();
  });
});
