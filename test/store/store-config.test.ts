/**
 * `mcp.store` in the config layers (where shared state lives: src/store): read from the user's
 * own files (global config, a --config file) with the precedence of the other host-wide
 * settings, never from a project's file (a repository must not choose where tokens go);
 * `${VAR}` expanded; checked with diagnostics that never quote it (it may hold a password);
 * `MCPWIRE_STORE` wins over it.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig, type LayerText } from '../../src/host/config/load.js';
import { storeSettingFrom } from '../../src/store/setting.js';

const PW = 'pw-from-env-9911';
const layer = (scope: 'global' | 'project', mcp: Record<string, unknown>, project?: boolean): LayerText => ({
  kind: 'native',
  scope,
  file: `/tmp/${scope}/config.json`,
  text: JSON.stringify({ mcp: { servers: {}, ...mcp } }),
  ...(project !== undefined ? { project } : {}),
});
const env = { REDIS_PW: PW, HOME: '/tmp' };

describe('mcp.store in the config layers', () => {
  it('the global config names the store; ${VAR} is expanded from the environment', () => {
    const r = resolveConfig([layer('global', { store: 'redis://:${REDIS_PW}@127.0.0.1:6379/0?prefix=prod' })], { env, cwd: '/tmp/proj' });
    expect(r.diagnostics).toEqual([]);
    expect(r.host?.store).toBe(`redis://:${PW}@127.0.0.1:6379/0?prefix=prod`);
    expect(storeSettingFrom({}, r.host?.store)).toMatchObject({ kind: 'redis', shown: 'redis://:***@127.0.0.1:6379/0', prefix: 'prod' });
  });

  it('a --config file (the user named it) is the highest layer and wins over the global config', () => {
    const r = resolveConfig([layer('project', { store: 'memory' }, false), layer('global', { store: 'redis://127.0.0.1:6379' })], { env, cwd: '/tmp/proj' });
    expect(r.host?.store).toBe('memory');
  });

  it('a project\'s file is not read for it: the global one stays, and a warning says why', () => {
    const r = resolveConfig([layer('project', { store: 'redis://attacker.example:6379' }), layer('global', { store: 'file' })], { env, cwd: '/tmp/proj' });
    expect(r.host?.store).toBe('file');
    const w = r.diagnostics.find((d) => d.field === 'mcp.store')!;
    expect(w.severity).toBe('warning');
    expect(w.message).toMatch(/not read from a project's file/);
    expect(w.message).not.toContain('attacker');
  });

  it('a bad value is an error naming the field, never quoting it (it may hold a password)', () => {
    for (const [bad, why] of [
      [`http://:${PW}@127.0.0.1:6379`, /scheme is not supported/],
      ['redis://:x@/0', /names no host|redis:\/\/ or rediss:\/\/ URL/],
      [`redis://:${PW}@127.0.0.1:6379?prefix=bad prefix!`, /prefix/],
      [42, /must be "file", "memory"/],
      ['not a url at all', /must be "file", "memory"/],
    ] as const) {
      const r = resolveConfig([layer('global', { store: bad })], { env, cwd: '/tmp/proj' });
      const d = r.diagnostics.filter((x) => x.field === 'mcp.store');
      expect(d, String(bad)).toHaveLength(1);
      expect(d[0].severity).toBe('error');
      expect(d[0].message).toMatch(why);
      expect(JSON.stringify(r.diagnostics)).not.toContain(PW);
    }
  });

  it('an unset variable is an error naming the variable; the store is not set from it', () => {
    const r = resolveConfig([layer('global', { store: 'redis://:${NO_SUCH_VAR_X}@127.0.0.1:6379' })], { env, cwd: '/tmp/proj' });
    expect(r.host?.store).toBeUndefined();
    expect(r.diagnostics.find((d) => d.field === 'mcp.store')?.message).toMatch(/NO_SUCH_VAR_X/);
  });

  it('MCPWIRE_STORE wins over the config', () => {
    expect(storeSettingFrom({ MCPWIRE_STORE: 'memory' }, 'redis://127.0.0.1:6379')).toEqual({ kind: 'memory' });
    expect(storeSettingFrom({}, 'redis://127.0.0.1:6379').kind).toBe('redis');
    expect(storeSettingFrom({}, undefined)).toEqual({ kind: 'file' });
  });
});
