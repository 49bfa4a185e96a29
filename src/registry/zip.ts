/**
 * A small reader of ZIP archives (what an MCPB bundle is): the central directory, stored and
 * deflated entries. Bounded: entry count, each entry's and the total unpacked size; a name that
 * would land outside the target (`..`, an absolute path) is refused.
 */
import { inflateRawSync } from 'node:zlib';
import path from 'node:path';

export interface ZipEntry {
  name: string;
  data: Buffer;
}

const MAX_ENTRIES = 10_000;
const MAX_TOTAL = 512 * 1024 * 1024;

/** Every file of the archive (directories left out), or an Error saying why it cannot be read. */
export function readZip(buf: Buffer): ZipEntry[] {
  const eocd = findEocd(buf);
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  if (count > MAX_ENTRIES) throw new Error(`the archive has ${count} entries (at most ${MAX_ENTRIES})`);
  const out: ZipEntry[] = [];
  let total = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > buf.length || buf.readUInt32LE(at) !== 0x02014b50) throw new Error('the archive\'s central directory is damaged');
    const method = buf.readUInt16LE(at + 10);
    const csize = buf.readUInt32LE(at + 20);
    const usize = buf.readUInt32LE(at + 24);
    const nlen = buf.readUInt16LE(at + 28);
    const xlen = buf.readUInt16LE(at + 30);
    const clen = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.subarray(at + 46, at + 46 + nlen).toString('utf8');
    at += 46 + nlen + xlen + clen;
    if (name.endsWith('/')) continue;
    safeName(name);
    total += usize;
    if (total > MAX_TOTAL) throw new Error(`the archive unpacks to more than ${MAX_TOTAL} bytes`);
    if (local + 30 > buf.length || buf.readUInt32LE(local) !== 0x04034b50) throw new Error(`the archive's entry ${name} is damaged`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(start, start + csize);
    const data = method === 0 ? Buffer.from(raw) : method === 8 ? inflateRawSync(raw, { maxOutputLength: Math.max(usize, 1) }) : undefined;
    if (data === undefined) throw new Error(`the archive's entry ${name} uses compression method ${method} (stored and deflate only)`);
    if (data.length !== usize) throw new Error(`the archive's entry ${name} does not unpack to its declared size`);
    out.push({ name, data });
  }
  return out;
}

function findEocd(buf: Buffer): number {
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65_535); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) return i;
  }
  throw new Error('not a ZIP archive (no end of central directory)');
}

/** Refuses a name that is absolute or climbs out of the target directory. */
export function safeName(name: string): void {
  const norm = path.posix.normalize(name.replace(/\\/g, '/'));
  if (name.includes('\0') || path.posix.isAbsolute(norm) || /^[A-Za-z]:/.test(norm) || norm === '..' || norm.startsWith('../')) {
    throw new Error(`the archive holds the unsafe path ${JSON.stringify(name.slice(0, 200))}`);
  }
}
