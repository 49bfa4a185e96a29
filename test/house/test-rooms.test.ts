// The tests live in rooms like src/ (test/README.md): no test file flat in test/, every room
// with a README and a row in test/README.md, and no test importing another test file — shared
// setup belongs in test/support/, where every room can reach it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const testDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const SHARED = new Set(['support', 'fixtures']);

function roomsUnder(dir: string, prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (!e.isDirectory() || (prefix === '' && SHARED.has(e.name))) return [];
    const room = prefix + e.name;
    return [room, ...roomsUnder(path.join(dir, e.name), room + '/')];
  });
}

function testFilesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return testFilesUnder(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

describe('test/ in rooms', () => {
  const rooms = roomsUnder(testDir);

  it('has no test file outside a room', () => {
    const flat = fs.readdirSync(testDir).filter((f) => f.endsWith('.test.ts'));
    expect(flat, 'move these into the room of the src/ folder they prove (test/README.md)').toEqual([]);
  });

  it('gives every room a README and a row in test/README.md', () => {
    const index = fs.readFileSync(path.join(testDir, 'README.md'), 'utf8');
    const missing = rooms.filter((r) => !fs.existsSync(path.join(testDir, r, 'README.md')) || !index.includes('| `' + r + '/` |'));
    expect(missing).toEqual([]);
    expect(rooms.length).toBeGreaterThan(10);
  });

  it('never imports a test file from a test file', () => {
    const offenders = testFilesUnder(testDir).filter((f) =>
      /from\s+['"][^'"]+\.test(\.js|\.ts)?['"]/.test(fs.readFileSync(f, 'utf8')),
    );
    expect(offenders.map((f) => path.relative(testDir, f))).toEqual([]);
  });
});
