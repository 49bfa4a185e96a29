/**
 * Finding processes by a marker in their command line (Linux /proc): a test starts a process
 * with a unique argument, then checks whether anything with it is still running — whatever pid
 * namespace started it.
 */
import fs from 'node:fs';

/** Pids of this machine's processes whose command line holds `marker`. */
export function withMarker(marker: string): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (fs.readFileSync(`/proc/${d}/cmdline`, 'latin1').includes(marker)) out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
