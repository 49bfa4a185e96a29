// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * The era chosen per stdio server (eras/select.ts; basic/transports/stdio "Backward
 * Compatibility"): `server/discover` first; a modern answer keeps the client modern, anything
 * else (an error of any code, garbage, silence, a process that exits) means `initialize`. A pin
 * skips the probe. Real child processes: the handshake-era mock, the modern mock in its modes.
 */
import { describe, expect, it } from 'vitest';
import { LEGACY_SERVER, MODERN_SERVER, recordedMocks } from '../support/recorded-mock.js';

const { mock, open } = recordedMocks('era-select-');

/** A mock running `script` (with a scenario object or mode); the methods it received, in order. */
let n = 0;
function server(script: string, scenario?: object | string) {
  const m = mock({ script, scenario, id: `s${++n}` });
  return { config: m.config, methods: () => m.received().map((r) => r.method as string) };
}

const dualWith = (discover: object) => ({ extends: 'default', mode: 'dual', behavior: { methods: { 'server/discover': discover } } });

describe('era per stdio server', () => {
  it('basic.versioning#9, server.discover#2: server/discover goes first; a handshake-only server that refuses it gets initialize', async () => {
    const s = server(LEGACY_SERVER);
    const c = await open(s.config);
    expect(c.era).toBe('handshake');
    expect(c.protocolVersion).toBe('2025-11-25');
    expect((await c.listTools()).length).toBeGreaterThan(0);
    const methods = s.methods();
    expect(methods[0]).toBe('server/discover');
    expect(methods[1]).toBe('initialize');
  });

  it('a dual server is spoken to in the modern era: no initialize', async () => {
    const s = server(MODERN_SERVER, 'dual');
    const c = await open(s.config);
    expect(c.era).toBe('modern');
    expect(c.protocolVersion).toBe('2026-07-28');
    expect((await c.callTool('echo', { text: 'dual' })).content).toEqual([{ type: 'text', text: 'dual' }]);
    expect(s.methods()).not.toContain('initialize');
  });

  it('a legacy server that exits on any request before initialize is started again and initialized', async () => {
    const s = server(MODERN_SERVER, 'legacy-strict');
    const closes: unknown[] = [];
    const c = await open(s.config);
    c.on('close', (e) => closes.push(e));
    expect(c.state).toBe('ready');
    expect(c.era).toBe('handshake');
    expect((await c.listTools()).length).toBeGreaterThan(0);
    expect(s.methods().filter((m) => m === 'initialize')).toHaveLength(1);
    expect(closes).toEqual([]);
  });

  it('the fallback is not keyed to one error code: -32601, -32602 and a non-JSON answer all mean initialize', async () => {
    for (const discover of [{ error: { code: -32601, message: 'Method not found' } }, { error: { code: -32602, message: 'no' } }, { garbage: true }]) {
      const s = server(MODERN_SERVER, dualWith(discover));
      const c = await open(s.config, { eraProbeTimeoutMs: 2_000 });
      expect(c.era, JSON.stringify(discover)).toBe('handshake');
      expect(s.methods()).toContain('initialize');
      await c.close();
    }
  });

  it('no answer to the probe within its timeout means initialize', async () => {
    const s = server(MODERN_SERVER, dualWith({ never: true }));
    const c = await open(s.config, { eraProbeTimeoutMs: 500 });
    expect(c.era).toBe('handshake');
    expect((await c.callTool('echo', { text: 'late' })).content).toEqual([{ type: 'text', text: 'late' }]);
  });

  it('a pin skips the probe: a handshake-era version opens with initialize, 2026-07-28 with discovery only', async () => {
    const old = server(MODERN_SERVER, 'dual');
    const a = await open(old.config, { protocolVersion: '2025-06-18' });
    expect(a.era).toBe('handshake');
    expect(a.protocolVersion).toBe('2025-06-18');
    expect(old.methods()[0]).toBe('initialize');
    expect(old.methods()).not.toContain('server/discover');
    const modern = server(LEGACY_SERVER);
    const err = await open(modern.config, { protocolVersion: '2026-07-28' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(modern.methods()).toEqual(['server/discover']);
  });
});
