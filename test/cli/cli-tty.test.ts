/**
 * Tables and listings fit the terminal: the CLI run in a pseudo-terminal of 80
 * columns (`script` gives it a pty; `stty cols 80` sets its width) prints no line longer than 80
 * characters, while the same command into a pipe keeps whole lines (so the fitting is what the
 * terminal asked for, not a fixed cut). Needs `dist/` and util-linux `script`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, everythingEntry, run, sandbox, sh, trust } from '../support/cli-user.js';
import { hasScript, onPty, quote, visible } from '../support/pty.js';

afterAll(cleanup);

describe.skipIf(!hasScript)('tables fit an 80-column terminal', { timeout: 180_000 }, () => {
  const sb = sandbox({ everything: everythingEntry(), broken: { transport: 'stdio', command: 'no-such-command-mcpwire-tty-test-with-a-long-name' } });

  /** Runs `mcpwire <args>` on a pty of `cols` columns; returns the lines it printed. */
  async function onTerminal(args: string[], cols = 80): Promise<string[]> {
    await trust(sb); // as run() does before it starts the CLI (script starts this one)
    const line = `${onPty(args, cols)} 2>/dev/null`; // stdout only: warnings are not tables
    const r = await sh(sb, `script -qec ${quote(line)} /dev/null`, { MCPWIRE_COLUMNS: '' });
    return r.stdout.split('\n').map(visible).filter((l) => l !== '');
  }

  const commands: string[][] = [
    ['tools', 'everything'],
    ['tools', 'everything', '--names'],
    ['tools', 'everything', 'trigger-url-elicitation'],
    ['resources'],
    ['templates'],
    ['prompts'],
    ['status'],
    ['mcp', 'list'],
  ];

  for (const args of commands) {
    it(`mcpwire ${args.join(' ')}: no line over 80 columns`, async () => {
      const lines = await onTerminal(args);
      expect(lines.length).toBeGreaterThan(2);
      const over = lines.filter((l) => l.length > 80);
      expect(over, lines.join('\n')).toEqual([]);
    });
  }

  it('into a pipe the same listings keep whole lines (the cut follows the terminal)', async () => {
    const piped = await run(sb, ['templates']);
    expect(piped.stdout.split('\n').some((l) => l.length > 80), piped.stdout).toBe(true);
    const narrow = await onTerminal(['templates'], 60);
    expect(narrow.every((l) => l.length <= 60)).toBe(true);
    expect(narrow.some((l) => l.endsWith('…'))).toBe(true);
  });
});
