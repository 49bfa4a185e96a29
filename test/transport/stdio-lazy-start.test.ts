/**
 * The stdio transport's spawn, environment, exit-hook and kill modules (stdio-runtime.ts) load on
 * its first start(), not with `import('mcpwire')`: what that changes must not show. Each test takes
 * a fresh copy of stdio.ts (vi.resetModules), so its first start() goes through the load.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { TransportEvent } from '../../src/transport/types.js';

type Stdio = typeof import('../../src/transport/stdio.js');
type Errors = typeof import('../../src/errors.js');
let fresh: Stdio;
/** The error classes of the same fresh module graph. */
let errors: Errors;
beforeEach(async () => {
  vi.resetModules();
  fresh = await import('../../src/transport/stdio.js');
  errors = await import('../../src/errors.js');
});

const node = process.execPath;
const LIVES = 'setInterval(() => {}, 1000)';

describe('stdio transport: the spawn modules load on the first start()', () => {
  it('close() while they load: start() rejects "closed during start", close() resolves, onclose once, no process started', async () => {
    const t = new fresh.StdioTransport({ command: node, args: ['-e', LIVES], serverId: 's' });
    const events: TransportEvent[] = [];
    t.onevent = (e) => events.push(e);
    const onclose = vi.fn();
    t.onclose = onclose;
    const started = t.start();
    const closed = t.close();
    const err = await started.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(errors.ConnectionClosedError);
    expect((err as Error).message).toMatch(/closed during start/);
    await closed;
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(onclose.mock.calls[0]).toEqual([]);
    expect(t.pid).toBeUndefined();
    expect(events).toEqual([]);
    await expect(t.close()).resolves.toBeUndefined();
  });

  it('a command not found on the first start: the same error, code and hint as any start', async () => {
    const t = new fresh.StdioTransport({ command: 'mcpwire-no-such-command-xyz', serverId: 'missing' });
    const err = await t.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(errors.TransportError);
    expect((err as InstanceType<Errors['TransportError']>).code).toBe('MCPWIRE_SPAWN_FAILED');
    expect((err as Error).message).toMatch(/command not found: "mcpwire-no-such-command-xyz"/);
  });

  it('stderrTail is empty before start; once loaded, a later start() spawns before it returns (no await before the child exists)', async () => {
    const first = new fresh.StdioTransport({ command: node, args: ['-e', 'process.stderr.write("hello-tail"); ' + LIVES], shutdown: { stdinCloseWaitMs: 100 } });
    expect(first.stderrTail).toBe('');
    await first.start();
    const second = new fresh.StdioTransport({ command: node, args: ['-e', LIVES], shutdown: { stdinCloseWaitMs: 100 } });
    const started = second.start();
    expect(second.pid).toBeTypeOf('number');
    await started;
    await vi.waitFor(() => expect(first.stderrTail).toBe('hello-tail'), { timeout: 5000 });
    await Promise.all([first.close(), second.close()]);
  });
});
