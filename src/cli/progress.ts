/**
 * Progress display on stderr: a redrawn bar on a TTY, plain `progress 3/5 message` lines
 * otherwise (so logs and CI stay readable).
 */
import type { ProgressParams, Task } from '../index.js';
import { headUnits, safeText } from './output.js';

/**
 * Cutting to terminal columns (./layout.ts) loads `string-width`: only a TTY redraws a line that
 * must fit, and it starts loading when the first printer for one is made, long before a server's
 * first progress report; until it is there, lines are cut by UTF-16 units, at a code point.
 */
let layout: typeof import('./layout.js') | undefined;
let loading: Promise<unknown> | undefined;
function loadLayout(): void {
  loading ??= import('./layout.js').then(
    (m) => (layout = m),
    () => {},
  );
}

/** A status line cut to the terminal's width (one column spare for the cursor). */
function fit(line: string, stream: NodeJS.WriteStream): string {
  if (!(stream.columns > 1)) return line;
  const max = stream.columns - 1;
  if (layout !== undefined) return layout.truncate(line, max);
  return line.length <= max ? line : `${headUnits(line, max - 1)}…`;
}

/**
 * A printer's `done()` clears the redrawn line when the call ended; `interrupt()` (Ctrl-C) ends it
 * with a newline instead, so it stays on screen above the "interrupted" line; after either,
 * what still arrives is not drawn.
 */
export interface StatusPrinter {
  done: () => void;
  interrupt: () => void;
}

export function progressPrinter(stream: NodeJS.WriteStream = process.stderr): StatusPrinter & { onProgress: (p: ProgressParams) => void } {
  const tty = stream.isTTY === true;
  if (tty) loadLayout();
  let drew = false;
  let ended = false;
  return {
    onProgress(p) {
      if (ended) return;
      const total = typeof p.total === 'number' ? p.total : undefined;
      const msg = p.message ? ` ${safeText(p.message, 60)}` : '';
      if (!tty) {
        stream.write(`progress ${p.progress}${total !== undefined ? `/${total}` : ''}${msg}\n`);
        return;
      }
      const width = 24;
      const frac = total ? Math.min(1, p.progress / total) : 0;
      const bar = total ? `[${'#'.repeat(Math.round(frac * width)).padEnd(width, '.')}] ${Math.round(frac * 100)}%` : `[${p.progress}]`;
      // one terminal line, or the \r redraw would leave wrapped pieces behind
      stream.write(`\r\u001b[2K${fit(`${bar}${msg}`, stream)}`);
      drew = true;
    },
    done() {
      if (drew && !ended) stream.write('\r\u001b[2K');
      ended = true;
    },
    interrupt() {
      if (drew && !ended) stream.write('\n');
      ended = true;
    },
  };
}

/**
 * Task status on stderr, like progress: `task <id> working 3s… <message>`. A line per status
 * change, plus (on a TTY) the same line redrawn every second so the elapsed time moves.
 */
export function taskStatusPrinter(
  stream: NodeJS.WriteStream = process.stderr,
  now: () => number = Date.now,
): StatusPrinter & { onTaskStatus: (task: Task) => void } {
  const tty = stream.isTTY === true;
  if (tty) loadLayout();
  const started = now();
  let last: Task | undefined;
  let timer: NodeJS.Timeout | undefined;
  let ended = false;
  const line = (t: Task) => {
    const secs = Math.floor((now() - started) / 1000);
    const msg = t.statusMessage ? ` ${safeText(t.statusMessage, 60)}` : '';
    return `task ${safeText(t.taskId, 40)} ${safeText(t.status, 20)} ${secs}s…${msg}`;
  };
  return {
    onTaskStatus(t) {
      if (ended) return;
      last = t;
      if (!tty) {
        stream.write(`${line(t)}\n`);
        return;
      }
      stream.write(`\r\u001b[2K${fit(line(t), stream)}`);
      timer ??= setInterval(() => last && stream.write(`\r\u001b[2K${fit(line(last), stream)}`), 1000);
      timer.unref();
    },
    done() {
      if (timer !== undefined) clearInterval(timer);
      if (tty && last !== undefined && !ended) stream.write('\r\u001b[2K');
      ended = true;
    },
    interrupt() {
      if (timer !== undefined) clearInterval(timer);
      if (tty && last !== undefined && !ended) stream.write('\n');
      ended = true;
    },
  };
}
