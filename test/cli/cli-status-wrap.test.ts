/**
 * `status` on a narrow terminal wraps the error column under itself instead of cutting it: the
 * end of an error (the error code, what to do) is often the point. The built CLI (dist/) on a
 * pseudo-terminal of 80 columns (util-linux `script`, `stty cols`); into a pipe the row stays one
 * line.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, run, sandbox, sh } from '../support/cli-user.js';
import { hasScript, onPty, quote, visible } from '../support/pty.js';

afterAll(cleanup);

describe.skipIf(!hasScript)('status error column on a narrow terminal', { timeout: 120_000 }, () => {
  const sb = sandbox({ broken: { transport: 'stdio', command: 'no-such-command-for-wrap' } });

  it('wraps the error (nothing lost, no line over 80 columns); into a pipe it is one line', async () => {
    const piped = await run(sb, ['status']);
    const pipedLines = piped.stdout.split('\n');
    const row = pipedLines.find((l) => l.startsWith('broken'))!;
    const error = row.slice(pipedLines[0].lastIndexOf('error')).trim();
    expect(error.length).toBeGreaterThan(40);
    const line = `${onPty(['status'], 80)} 2>/dev/null`;
    const r = await sh(sb, `script -qec ${quote(line)} /dev/null`, { MCPWIRE_COLUMNS: '' });
    const lines = r.stdout.split('\n').map(visible).filter((l) => l !== '');
    expect(lines.filter((l) => l.length > 80), lines.join('\n')).toEqual([]);
    const start = lines.findIndex((l) => l.startsWith('broken'));
    const indent = lines[0].lastIndexOf('error');
    const text = [lines[start].slice(indent), ...lines.slice(start + 1).filter((l) => l.startsWith(' '.repeat(indent))).map((l) => l.trim())].join(' ');
    expect(text.replace(/\s+/g, ' ')).toBe(error.replace(/\s+/g, ' '));
  });
});
