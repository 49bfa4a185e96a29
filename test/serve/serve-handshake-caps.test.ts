// clauses: 2026-07-28
/**
 * `mcpwire serve --http` between 2025-11-25 clients (mcpwire's own, pinned to the handshake) and
 * 2026-07-28 servers (the modern stdio mock, mock-servers/modern, recording what it receives):
 * each request the gateway makes for a session carries that session's own `initialize`
 * capabilities (not the first client's, nor another session's), and the server's input requests
 * reach that session as the 2025-11-25 requests they are (elicitation/create,
 * sampling/createMessage, roots/list). Two sessions with different capabilities at once, each
 * announced as itself; a server whose roots the config gives is announced roots by the gateway,
 * which answers them from the config.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { connect, type ClientOptions, type McpClient } from '../../src/index.js';
import { sharedHttpGateway } from '../support/serve-http-gateway.js';
import { CAPS, recordedMocks, type Msg } from '../support/recorded-mock.js';

const { dir, mock, clients } = recordedMocks('serve-handshake-caps-');
const modern = mock({ id: 'modern' });
const fixed = mock({ id: 'fixed' });
const tasky = mock({ id: 'tasky', scenario: 'tasks' });
const rootsDir = fs.mkdtempSync(path.join(dir, 'roots-'));
const config = path.join(dir, 'config.json');
fs.writeFileSync(
  config,
  JSON.stringify({
    version: 1,
    mcp: {
      serve_names: 'prefixed',
      servers: {
        modern: { ...modern.config, protocol_version: '2026-07-28' },
        fixed: { ...fixed.config, protocol_version: '2026-07-28', roots: [rootsDir] },
        tasky: { ...tasky.config, protocol_version: '2026-07-28' },
      },
    },
  }),
);

const gateway = sharedHttpGateway(config);

/** A 2025-11-25 client of the file's one gateway (started by the first). */
async function session(options: ClientOptions): Promise<McpClient> {
  const c = await connect({ id: 'gateway', transport: 'http', url: await gateway.url() }, { protocolVersion: '2025-11-25', timeoutMs: 30_000, ...options });
  clients.push(c);
  return c;
}

/** The tools/call requests a mock received for `tool` with `message` (first call and retries). */
function calls(m: typeof modern, tool: string, message?: string): Msg[] {
  return m.received().filter((r) => r.method === 'tools/call' && r.params?.name === tool && (message === undefined || r.params?.arguments?.message === message));
}

/** The gateway's own: the host follows task handles itself (handshake-input.ts), announced for every session. */
const extensions = { 'io.modelcontextprotocol/tasks': {} };

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

describe('serve: 2025-11-25 sessions through the gateway to a 2026-07-28 server', { timeout: 90_000 }, () => {
  // cites basic.patterns.mrtr#13: the server is told each session's own capabilities, so it can keep from asking what that session cannot answer
  it("basic#44, client.elicitation#4, client.sampling#6, basic.patterns.mrtr#13: two sessions at once, each announced with its own capabilities and each asked its own input", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const askedA: string[] = [];
    const askedB: string[] = [];
    // A starts the gateway (its host's client is made with A's capabilities): elicitation and roots
    const a = await session({
      onElicitation: async (p) => {
        askedA.push(`elicit:${p.message}`);
        await held;
        return { action: 'accept', content: { ok: true } };
      },
      roots: () => [{ uri: 'file:///home/a', name: 'a' }],
    });
    // B: sampling only
    const b = await session({
      onElicitation: undefined,
      onSampling: async (p) => {
        askedB.push(`sample:${JSON.stringify(p.messages[0]?.content)}`);
        return { role: 'assistant', content: { type: 'text', text: 'hi from B' }, model: 'b-model' } as never;
      },
    });
    // A's call waits in its elicitation while B calls the same server
    const aCall = a.callTool('modern__confirm', { message: 'A?' });
    await expect.poll(() => askedA.length, { timeout: 30_000 }).toBe(1);
    // B did not declare elicitation: the server is told so and says what it needs (basic#49), no one else is asked
    await expect(b.callTool('modern__confirm', { message: 'B?' })).rejects.toMatchObject({ rpcCode: -32021 });
    const sampled = await b.callTool('modern__sample', { message: 'B sample' });
    expect(text(sampled)).toBe('model said: hi from B');
    release();
    const done = await aCall;
    expect(text(done)).toMatch(/^accept: \{"ok":true\} after \d+ round/);

    expect(askedA).toEqual(['elicit:A?']);
    expect(askedB).toEqual([`sample:${JSON.stringify({ type: 'text', text: 'B sample' })}`]);
    const mineA = { elicitation: { form: {} }, roots: {}, extensions };
    const mineB = { sampling: {}, extensions };
    expect(calls(modern, 'confirm', 'A?').length).toBeGreaterThanOrEqual(2); // the first request and its retry
    for (const c of calls(modern, 'confirm', 'A?')) expect(c.params._meta[CAPS]).toEqual(mineA);
    expect(calls(modern, 'confirm', 'B?').length).toBeGreaterThanOrEqual(1);
    for (const c of [...calls(modern, 'confirm', 'B?'), ...calls(modern, 'sample', 'B sample')]) expect(c.params._meta[CAPS]).toEqual(mineB);
    // the retry answers the server under its own key
    expect(calls(modern, 'confirm', 'A?').find((c) => c.params.inputResponses !== undefined)?.params.inputResponses).toEqual({ confirm: { action: 'accept', content: { ok: true } } });
  });

  it('client.roots#2: a session\'s roots/list answers the server\'s roots input request; a server whose roots the config gives is announced roots by the gateway, which answers them', async () => {
    const asked: string[] = [];
    const withRoots = await session({
      roots: () => {
        asked.push('roots');
        return [{ uri: 'file:///home/me', name: 'home' }];
      },
    });
    const none = await session({});
    const r = await withRoots.callTool('modern__roots', {});
    expect(text(r)).toBe('roots: file:///home/me');
    expect(asked).toEqual(['roots']);
    for (const c of calls(modern, 'roots')) expect(c.params._meta[CAPS]).toEqual({ roots: {}, extensions });

    // the session declared nothing; `fixed`'s roots are the config's (the gateway's own, not the client's)
    const before = calls(fixed, 'roots').length;
    const g = await none.callTool('fixed__roots', {});
    expect(text(g)).toBe(`roots: ${pathToFileURL(rootsDir).href}`);
    expect(asked).toEqual(['roots']);
    const mine = calls(fixed, 'roots').slice(before);
    expect(mine.length).toBeGreaterThanOrEqual(2);
    for (const c of mine) expect(c.params._meta[CAPS]).toEqual({ roots: {}, extensions });
    // and that session's requests to a server without configured roots announce none
    await expect(none.callTool('modern__roots', {})).rejects.toMatchObject({ rpcCode: -32021 });
    expect(calls(modern, 'roots').at(-1)?.params._meta[CAPS]).toEqual({ extensions });
  });

  // cites basic#48: the server relies on the tasks extension only when the request declares it; the gateway declares it because its host follows the task itself
  it('basic#48: a task-required tool of a 2026-07-28 server runs for a 2025-11-25 session that never heard of tasks (the gateway follows the task)', async () => {
    const c = await session({});
    const r = await c.callTool('tasky__research', { ms: 10 });
    expect(r.isError).not.toBe(true);
    expect(text(r)).toBe('slept 10 ms');
    const sent = calls(tasky, 'research');
    expect(sent.length).toBe(1);
    expect(sent[0]!.params._meta[CAPS]).toEqual({ extensions });
  });
});
