/**
 * The daemon's files stay bounded: a server's stderr log is moved to `<file>.1` when the next
 * write would take it past the bound (one older generation kept, replaced), and a trace or the
 * daemon's own log over the bound is moved aside when it is opened again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BoundedLog, rotateIfOver } from '../../src/daemon/bounded-files.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-bounded-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));


describe('daemon files are bounded', () => {
  it('a stderr log never holds more than the bound; what came before is in <file>.1, the generation before that is gone', () => {
    const file = path.join(dir, 'srv.log');
    const errors: Error[] = [];
    const log = new BoundedLog(file, (e) => errors.push(e), 100);
    for (let i = 0; i < 10; i++) log.write(Buffer.from(`line ${i} ${'x'.repeat(30)}\n`));
    log.end();
    expect(errors).toEqual([]);
    const current = fs.readFileSync(file, 'utf8');
    const older = fs.readFileSync(`${file}.1`, 'utf8');
    expect(current.length).toBeLessThanOrEqual(100);
    expect(older.length).toBeLessThanOrEqual(100);
    expect(current).toMatch(/line 9 /);
    expect(older).toMatch(/line [5-8] /);
    expect(current + older).not.toMatch(/line 0 /);
  });

  it('a log reopened over the bound starts afresh; one under it is appended to', () => {
    const file = path.join(dir, 'again.log');
    fs.writeFileSync(file, 'y'.repeat(150));
    const log = new BoundedLog(file, () => {}, 100);
    log.write(Buffer.from('fresh\n'));
    log.end();
    expect(fs.readFileSync(file, 'utf8')).toBe('fresh\n');
    expect(fs.readFileSync(`${file}.1`, 'utf8')).toBe('y'.repeat(150));
    const small = path.join(dir, 'small.log');
    fs.writeFileSync(small, 'kept\n');
    const log2 = new BoundedLog(small, () => {}, 100);
    log2.write(Buffer.from('more\n'));
    log2.end();
    expect(fs.readFileSync(small, 'utf8')).toBe('kept\nmore\n');
  });

  it('rotateIfOver moves a file over the bound aside and leaves one within it (or an absent one) alone', () => {
    const big = path.join(dir, 'trace.jsonl');
    fs.writeFileSync(big, 'z'.repeat(300));
    expect(rotateIfOver(big, 200)).toBe(true);
    expect(fs.existsSync(big)).toBe(false);
    expect(fs.statSync(`${big}.1`).size).toBe(300);
    fs.writeFileSync(big, 'z'.repeat(100));
    expect(rotateIfOver(big, 200)).toBe(false);
    expect(fs.statSync(big).size).toBe(100);
    expect(rotateIfOver(path.join(dir, 'absent.jsonl'), 200)).toBe(false);
  });
});
