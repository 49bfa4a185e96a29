// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * The era verdict kept across connections of one server configuration (basic.versioning#7:
 * cache the result, MAY persist it across restarts of the same server configuration, re-probe
 * if the cached assumption later fails). The client's `knownEra` and the host, which passes the
 * verdict of the last successful opening to the next one. Real child processes (the recorded
 * mocks); the host's connect is wrapped only to see the options it passes and to swap which
 * server the same entry starts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type ClientOptions, type ServerConfig, type StdioServerConfig } from '../../src/index.js';
import { createHost, type McpHost } from '../../src/host/index.js';
import { stdioServer } from '../support/host-servers.js';
import { LEGACY_SERVER, MODERN_SERVER, recordedMocks } from '../support/recorded-mock.js';

const { mock, open } = recordedMocks('era-known-');

let n = 0;
function server(script: string, scenario?: object | string) {
  const m = mock({ script, scenario, id: `k${++n}` });
  return { config: m.config, methods: () => m.received().map((r) => r.method as string).filter(Boolean) };
}

describe('client: knownEra', () => {
  it('basic.versioning#7: an era known from an earlier connection is spoken at once: initialize first, no server/discover', async () => {
    const s = server(LEGACY_SERVER);
    const c = await open(s.config, { knownEra: 'handshake' });
    expect(c.era).toBe('handshake');
    expect((await c.listTools()).length).toBeGreaterThan(0);
    expect(s.methods()[0]).toBe('initialize');
    expect(s.methods()).not.toContain('server/discover');
  });

  it('a known handshake era on a server that became modern-only: its -32022 naming modern versions switches to modern in the same opening', async () => {
    const s = server(MODERN_SERVER);
    const c = await open(s.config, { knownEra: 'handshake' });
    expect(c.era).toBe('modern');
    expect((await c.callTool('echo', { text: 'up' })).content).toEqual([{ type: 'text', text: 'up' }]);
    expect(s.methods().slice(0, 2)).toEqual(['initialize', 'server/discover']);
  });

  it('a known modern era on a server that became handshake-only fails that opening (the verdict is not a pin); without it the probe finds the era', async () => {
    const s = server(LEGACY_SERVER);
    const err = await open(s.config, { knownEra: 'modern', timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(s.methods()).not.toContain('initialize');
    const c = await open(s.config);
    expect(c.era).toBe('handshake');
  });

  it('a knownEra that names no era is no verdict: the probe runs', async () => {
    const s = server(LEGACY_SERVER);
    const c = await open(s.config, { knownEra: 'stateless' as unknown as 'modern' });
    expect(c.era).toBe('handshake');
    expect(s.methods().slice(0, 2)).toEqual(['server/discover', 'initialize']);
  });

  it('a pin wins over a known era', async () => {
    const s = server(MODERN_SERVER, 'dual');
    const c = await open(s.config, { protocolVersion: '2025-06-18', knownEra: 'modern' });
    expect(c.era).toBe('handshake');
    expect(s.methods()).not.toContain('server/discover');
  });
});

describe('host: the verdict of the last opening goes to the next', () => {
  let host: McpHost | undefined;
  afterEach(async () => {
    await host?.close();
    host = undefined;
  });

  /** A host of one entry `id` whose process is `current()`; every opening's knownEra in `seen`. */
  function hostOf(current: () => StdioServerConfig) {
    const seen: Array<ClientOptions['knownEra']> = [];
    const first = current();
    host = createHost([stdioServer(first.id!, first.args!, { env: first.env })], {
      permission: 'allow',
      connect: (config: ServerConfig, options: ClientOptions) => {
        seen.push(options.knownEra);
        const now = current();
        return connect({ ...(config as StdioServerConfig), args: now.args, env: { ...(config as StdioServerConfig).env, ...now.env } }, options);
      },
    });
    return { host, seen };
  }

  const state = (h: McpHost) => h.status()[0]!;

  it('basic.versioning#7: a restart of a handshake-only stdio server opens with initialize; the probe ran once', async () => {
    const s = server(LEGACY_SERVER);
    const { host: h, seen } = hostOf(() => s.config);
    await h.start();
    expect(state(h)).toMatchObject({ state: 'ready', era: 'handshake' });
    await h.restart(s.config.id!);
    expect(state(h)).toMatchObject({ state: 'ready', era: 'handshake' });
    expect(seen).toEqual([undefined, 'handshake']);
    expect(s.methods().filter((m) => m === 'server/discover' || m === 'initialize')).toEqual(['server/discover', 'initialize', 'initialize']);
  });

  it('basic.versioning#7: an opening with the kept verdict that fails forgets it, so the next one probes again', async () => {
    const modern = server(MODERN_SERVER);
    const legacy = server(LEGACY_SERVER);
    let now = modern.config;
    const { host: h, seen } = hostOf(() => now);
    await h.start();
    expect(state(h)).toMatchObject({ state: 'ready', era: 'modern' });
    now = legacy.config; // the same entry now starts a handshake-only server
    await h.restart(modern.config.id!);
    expect(state(h).state).toBe('error');
    expect(legacy.methods()).toEqual(['server/discover']);
    await h.restart(modern.config.id!);
    expect(state(h)).toMatchObject({ state: 'ready', era: 'handshake' });
    expect(seen).toEqual([undefined, 'modern', undefined]);
  });

  it('a pinned entry passes its pin, never a known era', async () => {
    const s = server(MODERN_SERVER, 'dual');
    const seen: Array<[string | undefined, string | undefined]> = [];
    host = createHost([stdioServer(s.config.id!, s.config.args!, { env: s.config.env, protocolVersion: '2025-11-25' })], {
      permission: 'allow',
      connect: (config: ServerConfig, options: ClientOptions) => {
        seen.push([options.protocolVersion, options.knownEra]);
        return connect(config, options);
      },
    });
    await host.start();
    await host.restart(s.config.id!);
    expect(seen).toEqual([
      ['2025-11-25', undefined],
      ['2025-11-25', undefined],
    ]);
  });
});
