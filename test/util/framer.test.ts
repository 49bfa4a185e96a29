import { describe, expect, it, vi } from 'vitest';
import { NdjsonFramer, type FramerDiagnostic } from '../../src/jsonrpc/framer.js';

function collect(max?: number) {
  const messages: unknown[] = [];
  const diags: FramerDiagnostic[] = [];
  const framer = new NdjsonFramer({ maxMessageBytes: max, onMessage: (m) => messages.push(m), onDiagnostic: (d) => diags.push(d) });
  return { framer, messages, diags };
}

const msgs = [
  { jsonrpc: '2.0', id: 1, result: { text: 'héllo — 日本語 🎉' } },
  { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
  { jsonrpc: '2.0', id: 'x', method: 'ping' },
];
const bytes = Buffer.from(msgs.map((m) => JSON.stringify(m)).join('\n') + '\n', 'utf8');

describe('NDJSON framer (basic/transports stdio framing, basic.transports#1 #3)', () => {
  it('decodes many messages in one chunk', () => {
    const { framer, messages, diags } = collect();
    framer.push(bytes);
    expect(messages).toEqual(msgs);
    expect(diags).toEqual([]);
  });

  it('decodes a stream fed one byte at a time, splitting multibyte UTF-8 characters', () => {
    const { framer, messages } = collect();
    for (let i = 0; i < bytes.length; i++) framer.push(bytes.subarray(i, i + 1));
    expect(messages).toEqual(msgs);
    expect(framer.bufferedBytes).toBe(0);
  });

  it('decodes every possible two-chunk split identically', () => {
    for (let cut = 1; cut < bytes.length; cut++) {
      const { framer, messages } = collect();
      framer.push(bytes.subarray(0, cut));
      framer.push(bytes.subarray(cut));
      expect(messages).toEqual(msgs);
    }
  });

  it('accepts CRLF line endings and tolerates blank lines', () => {
    const { framer, messages, diags } = collect();
    framer.push(Buffer.from('\r\n{"jsonrpc":"2.0","id":1,"result":{}}\r\n\n{"jsonrpc":"2.0","method":"a"}\r'));
    framer.push(Buffer.from('\n'));
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }, { jsonrpc: '2.0', method: 'a' }]);
    expect(diags).toEqual([]);
  });

  it('reports a malformed line with a bounded, escaped excerpt, skips it and carries on', () => {
    const { framer, messages, diags } = collect();
    const garbage = 'this is not json \u001b[31m' + 'x'.repeat(5000);
    framer.push(Buffer.from(`${garbage}\n{"jsonrpc":"2.0","id":2,"result":{}}\n`));
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
    expect(diags).toHaveLength(1);
    expect(diags[0].code).toBe('MCPWIRE_FRAME_MALFORMED');
    expect(diags[0].excerpt!.length).toBeLessThan(300);
    expect(diags[0].excerpt).not.toContain('\u001b');
    expect(diags[0].excerpt).toContain('\\u001b');
  });

  it('refuses a message over the maximum size with a clear error, without buffering it, and recovers', () => {
    const { framer, messages, diags } = collect(1024);
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { s: 'y'.repeat(5000) } });
    // Fed in pieces: the framer must stop holding bytes once the line is known to be too big.
    for (let i = 0; i < big.length; i += 100) {
      framer.push(Buffer.from(big.slice(i, i + 100)));
      expect(framer.bufferedBytes).toBeLessThanOrEqual(1024);
    }
    framer.push(Buffer.from('\n{"jsonrpc":"2.0","id":3,"result":{}}\n'));
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 3, result: {} }]);
    expect(diags).toHaveLength(1);
    expect(diags[0].code).toBe('MCPWIRE_FRAME_OVERSIZED');
    expect(diags[0].message).toMatch(/exceeds the maximum of 1024 bytes/);
  });

  it('refuses an oversized line that arrives whole in one chunk', () => {
    const { framer, messages, diags } = collect(64);
    framer.push(Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', method: 'x'.repeat(100) })}\n{"jsonrpc":"2.0","method":"ok"}\n`));
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'ok' }]);
    expect(diags.map((d) => d.code)).toEqual(['MCPWIRE_FRAME_OVERSIZED']);
  });

  it('delivers a final unterminated line at end of input', () => {
    const { framer, messages } = collect();
    framer.push(Buffer.from('{"jsonrpc":"2.0","method":"last"}'));
    expect(messages).toEqual([]);
    framer.end();
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'last' }]);
  });

  it('passes arrays (batches) through for the protocol layer to judge', () => {
    const { framer, messages } = collect();
    framer.push(Buffer.from('[{"jsonrpc":"2.0","method":"a"}]\n'));
    expect(messages).toEqual([[{ jsonrpc: '2.0', method: 'a' }]]);
  });

  it('does not search a chunk that ends with its last newline, and still splits every line in it', () => {
    const { framer, messages, diags } = collect();
    const spy = vi.spyOn(Buffer.prototype, 'lastIndexOf');
    try {
      framer.push(bytes); // three whole lines, the chunk ends with the newline of the last
      framer.push(Buffer.from('{"jsonrpc":"2.0","id":2,"result":{}}\r\n'));
      expect(spy).not.toHaveBeenCalled();
      framer.push(Buffer.from('{"jsonrpc":"2.0","id":3,"result":{}}\n{"jsonrpc":"2.0",')); // a line left over
      expect(spy).toHaveBeenCalledTimes(1);
      framer.push(Buffer.from('"id":4,"result":{}}\n'));
    } finally {
      spy.mockRestore();
    }
    expect(diags).toEqual([]);
    expect(messages).toEqual([...msgs, { jsonrpc: '2.0', id: 2, result: {} }, { jsonrpc: '2.0', id: 3, result: {} }, { jsonrpc: '2.0', id: 4, result: {} }]);
  });
  it('hands on the exact text of every ASCII line, whole chunks and lines after a held one, from any offset', () => {
    const texts: string[] = [];
    const framer = new NdjsonFramer({ onMessage: (_m, text) => texts.push(text), onDiagnostic: () => {} });
    const lines = Array.from({ length: 6 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i, result: { text: 'x'.repeat(i * 7) } }));
    const all = Buffer.from(lines.join('\n') + '\n');
    for (let cut = 1; cut < all.length; cut++) {
      texts.length = 0;
      framer.push(all.subarray(0, cut));
      framer.push(all.subarray(cut));
      expect(texts).toEqual(lines);
    }
    // one chunk holding a held line's end, whole lines, and the start of the next (cut into a larger buffer)
    texts.length = 0;
    const big = Buffer.concat([Buffer.from('{"jsonrpc":"2.0",'), Buffer.from('"id":9,"result":{}}\n' + lines.join('\n') + '\n{"jsonrpc"')]);
    framer.push(big.subarray(0, 17));
    framer.push(big.subarray(17));
    framer.push(Buffer.from(':"2.0","id":10,"result":{}}\n'));
    expect(texts).toEqual(['{"jsonrpc":"2.0","id":9,"result":{}}', ...lines, '{"jsonrpc":"2.0","id":10,"result":{}}']);
  });
});
