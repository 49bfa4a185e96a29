/**
 * The built CLI on a pseudo-terminal, for the tests of what a person sees: util-linux `script`
 * gives the command a pty, `stty` sets its size; the output read back without its escapes.
 */
import { execFileSync } from 'node:child_process';
import { cli, node } from './cli-process.js';

/** Whether util-linux `script` is here (the pty tests skip without it). */
export const hasScript: boolean = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** `s` as one sh word. */
export const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** A line as it shows: no carriage returns, no ANSI escape sequences. */
// eslint-disable-next-line no-control-regex
export const visible = (line: string): string => line.replace(/\r/g, '').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');

/** The sh line that sizes the terminal to `cols` columns and runs `mcpwire <args>` on it. */
export const onPty = (args: string[], cols: number): string => `stty cols ${cols} rows 40; ${quote(node)} ${quote(cli)} ${args.map(quote).join(' ')}`;
