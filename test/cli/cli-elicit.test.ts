/**
 * The CLI's elicitation prompt (src/cli/elicit.ts): declines when stdin is not a terminal;
 * on a terminal asks field by field, re-asks on invalid input, offers defaults, shows the
 * answers for review, and for URL mode shows the full URL and its host before asking consent.
 * Streams are injected (a PassThrough marked `isTTY` stands in for the terminal); the last test
 * runs the built CLI (dist/) as a child process with a pipe for stdin.
 */
import http from 'node:http';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cliElicitation, parseAnswer } from '../../src/cli/elicit.js';
import type { ElicitRequestParams } from '../../src/index.js';
import { runCliHere } from '../support/cli-in-process.js';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');

function terminal(lines: string[], tty = true) {
  const input = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (tty) input.isTTY = true;
  input.end(lines.map((l) => `${l}\n`).join(''));
  const output = new PassThrough();
  let written = '';
  output.on('data', (c: Buffer) => (written += c.toString()));
  return { streams: { input, output }, written: () => written };
}

const ctx = { signal: new AbortController().signal, serverId: 'weather' };
const form: ElicitRequestParams = {
  mode: 'form',
  message: 'Please provide your contact information',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Name', minLength: 2 },
      email: { type: 'string', format: 'email' },
      age: { type: 'integer', minimum: 18, default: 30 },
      color: { type: 'string', oneOf: [{ const: '#f00', title: 'Red' }, { const: '#0f0', title: 'Green' }] },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] } },
      ok: { type: 'boolean' },
    },
    required: ['name', 'email'],
  },
};

describe('CLI elicitation prompt', () => {
  it('client.elicitation#43: when stdin is not a terminal, form and URL elicitations are declined (nothing is asked, nothing opened)', async () => {
    const t = terminal(['y'], false);
    const handler = cliElicitation(t.streams);
    expect(await handler(form, ctx)).toEqual({ action: 'decline' });
    expect(await handler({ mode: 'url', message: 'Connect', url: 'https://example.com/c', elicitationId: 'e' }, ctx)).toEqual({ action: 'decline' });
    expect(t.written()).toMatch(/declined an elicitation from server "weather" \(stdin is not a terminal\)/);
    expect(t.written()).not.toMatch(/send|open this URL/);
  });

  it('client.elicitation#3 / #32 / #10: on a terminal it names the server, asks each field (re-asking invalid input), keeps defaults on Enter, and sends only after review', async () => {
    const t = terminal(['A', 'Ann', 'nope', 'ann@example.com', '', 'x', '2', '1,3', 'y', 'y']);
    const r = await cliElicitation(t.streams)(form, ctx);
    expect(r).toEqual({ action: 'accept', content: { name: 'Ann', email: 'ann@example.com', age: 30, color: '#0f0', tags: ['a', 'c'], ok: true } });
    const out = t.written();
    expect(out).toMatch(/server "weather" asks \(form\): Please provide your contact information/);
    expect(out).toMatch(/must be at least 2 characters/);
    expect(out).toMatch(/must be a valid email/);
    expect(out).toMatch(/\[default: 30\]/);
    expect(out).toMatch(/1\) Red  2\) Green/);
    expect(out).toMatch(/send \{"name":"Ann".*\? \[y\]es \/ \[n\]o, decline \/ \[c\]ancel/);
  });

  it('client.elicitation#3: the user can decline or cancel at any field, at review, or by closing the input', async () => {
    expect(await cliElicitation(terminal([':decline']).streams)(form, ctx)).toEqual({ action: 'decline' });
    expect(await cliElicitation(terminal(['Ann', ':cancel']).streams)(form, ctx)).toEqual({ action: 'cancel' });
    expect(await cliElicitation(terminal(['Ann', 'a@b.co', '', '', '', '', 'n']).streams)(form, ctx)).toEqual({ action: 'decline' });
    expect(await cliElicitation(terminal(['Ann', 'a@b.co', '', '', '', '', 'c']).streams)(form, ctx)).toEqual({ action: 'cancel' });
    expect(await cliElicitation(terminal(['Ann']).streams)(form, ctx)).toEqual({ action: 'cancel' });
  });

  it('client.elicitation#44 / #43 / #45 / #42 / #46 / #47: URL mode shows the full URL and its host before asking consent, warns on punycode, and never fetches the URL itself', async () => {
    let hits = 0;
    const server = http.createServer((_q, res) => (hits++, res.end('x')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/connect?elicitationId=e1`;
      const yes = terminal(['y']);
      const p = { mode: 'url' as const, message: 'Connect your account', url, elicitationId: 'e1' };
      expect(await cliElicitation(yes.streams)(p, ctx)).toEqual({ action: 'accept' });
      const out = yes.written();
      expect(out.indexOf(`URL:  ${url}`)).toBeGreaterThan(-1);
      expect(out.indexOf('host: 127.0.0.1')).toBeLessThan(out.indexOf('open this URL in your browser? [y/N]'));
      expect(out.indexOf(`URL:  ${url}`)).toBeLessThan(out.indexOf('open this URL in your browser? [y/N]'));
      expect(await cliElicitation(terminal(['']).streams)(p, ctx)).toEqual({ action: 'decline' });
      const puny = terminal(['n']);
      await cliElicitation(puny.streams)({ ...p, url: 'https://xn--pypal-4ve.com/login' }, ctx);
      expect(puny.written()).toMatch(/warning: the host name uses punycode/);
      expect(hits).toBe(0);
    } finally {
      server.close();
    }
  });

  it('titled enums show their titles and send their values: oneOf/anyOf const+title, multi-select items.anyOf, legacy enumNames; a title typed out counts too', async () => {
    const titled: ElicitRequestParams = {
      mode: 'form',
      message: 'Pick',
      requestedSchema: {
        type: 'object',
        properties: {
          hero: { type: 'string', oneOf: [{ const: 'hero-1', title: 'Ada Lovelace' }, { const: 'hero-2', title: 'Grace Hopper' }], default: 'hero-2' },
          sidekick: { type: 'string', anyOf: [{ const: 'sk-1', title: 'Robin' }, { const: 'sk-2', title: 'Watson' }] },
          team: { type: 'array', items: { anyOf: [{ const: 't-a', title: 'Alpha' }, { const: 't-b', title: 'Bravo' }, { const: 't-c', title: 'Charlie' }] } },
          size: { type: 'string', enum: ['s', 'm', 'l'], enumNames: ['Small', 'Medium', 'Large'] },
        },
      },
    };
    const t = terminal(['', 'watson', '1,3', '3', 'y']);
    const r = await cliElicitation(t.streams)(titled, ctx);
    expect(r).toEqual({ action: 'accept', content: { hero: 'hero-2', sidekick: 'sk-2', team: ['t-a', 't-c'], size: 'l' } });
    const out = t.written();
    expect(out).toMatch(/1\) Ada Lovelace  2\) Grace Hopper/);
    expect(out).toMatch(/\[default: Grace Hopper\]/);
    expect(out).toMatch(/1\) Robin  2\) Watson/);
    expect(out).toMatch(/1\) Alpha  2\) Bravo  3\) Charlie/);
    expect(out).toMatch(/1\) Small  2\) Medium  3\) Large/);
    expect(out).not.toMatch(/\d\) (hero|sk|t)-/);
  });

  it('strips terminal control sequences from server text', async () => {
    const t = terminal([':decline']);
    await cliElicitation(t.streams)({ ...form, message: 'hi\u001b[2J\u001b]0;pwned\u0007 there' }, ctx);
    expect(t.written()).not.toMatch(/\u001b|\u0007/);
  });

  it('parses answers by type: numbers, yes/no, choice numbers, comma lists', () => {
    expect(parseAnswer({ type: 'number' }, ' 4.5 ')).toBe(4.5);
    expect(parseAnswer({ type: 'boolean' }, 'No')).toBe(false);
    expect(parseAnswer({ type: 'string', enum: ['x', 'y'] }, '2')).toBe('y');
    expect(parseAnswer({ type: 'array', items: { type: 'string', enum: ['x', 'y'] } }, '2, x')).toEqual(['y', 'x']);
  });

  it('client.elicitation#43: the built CLI declines an elicitation when stdin is a pipe, and the server gets {action: "decline"}', async () => {
    const mockCmd = `${process.execPath} ${path.join(root, 'mock-servers/stdio-server.mjs')} client-features`;
    const args = JSON.stringify({ method: 'elicitation/create', params: { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } });
    const r = await runCliHere(['--stdio', mockCmd, 'call', 'ask', '--args', args, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ content: [{ type: 'text', text: '{"action":"decline"}' }] });
    expect(r.stderr).toMatch(/declined an elicitation from server ".*" \(stdin is not a terminal\)/);
  });
});
