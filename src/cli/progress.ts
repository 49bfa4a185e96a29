/**
 * Progress display on stderr: a redrawn bar on a TTY, plain `progress 3/5 message` lines
 * otherwise (so logs and CI stay readable).
 */
import type { ProgressParams } from '../index.js';
import { safeText } from './output.js';

export function progressPrinter(stream: NodeJS.WriteStream = process.stderr): { onProgress: (p: ProgressParams) => void; done: () => void } {
  const tty = stream.isTTY === true;
  let drew = false;
  return {
    onProgress(p) {
      const total = typeof p.total === 'number' ? p.total : undefined;
      const msg = p.message ? ` ${safeText(p.message, 60)}` : '';
      if (!tty) {
        stream.write(`progress ${p.progress}${total !== undefined ? `/${total}` : ''}${msg}\n`);
        return;
      }
      const width = 24;
      const frac = total ? Math.min(1, p.progress / total) : 0;
      const bar = total ? `[${'#'.repeat(Math.round(frac * width)).padEnd(width, '.')}] ${Math.round(frac * 100)}%` : `[${p.progress}]`;
      stream.write(`\r\u001b[2K${bar}${msg}`);
      drew = true;
    },
    done() {
      if (drew) stream.write('\r\u001b[2K');
    },
  };
}
