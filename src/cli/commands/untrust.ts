/** `mcpwire untrust [<dir>]`: the same as `mcpwire trust --revoke [<dir>]` (see `trust.ts`). */
import trust from './trust.js';

export default function untrust(argv: string[]): Promise<number> {
  return trust(['--revoke', ...argv]);
}
