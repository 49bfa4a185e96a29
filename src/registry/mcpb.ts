/**
 * MCPB bundles: downloaded (bounded), verified by their SHA-256 before anything is unpacked or
 * run, unpacked under the store directory (`<config dir>/bundles/<sha256>/`), and launched as
 * their `manifest.json` says (`server.mcp_config`, with `${__dirname}` the bundle's directory).
 * A wrong SHA-256 leaves nothing on disk.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RegistryError } from './errors.js';
import { getBytes, shortUrl } from './http.js';
import type { BundleLaunch } from './plan.js';
import type { PackageSpec } from './types.js';
import { readZip } from './zip.js';

export const MAX_BUNDLE_BYTES = 100 * 1024 * 1024;

interface Manifest {
  server?: { type?: string; entry_point?: string; mcp_config?: { command?: string; args?: string[]; env?: Record<string, string> } };
}

/** Downloads, verifies and unpacks the bundle of `pkg` (once per SHA-256); how to launch it. */
export async function installBundle(pkg: PackageSpec, storeDir: string, signal?: AbortSignal): Promise<BundleLaunch & { dir: string; sha256: string }> {
  const want = pkg.fileSha256;
  if (want === undefined) throw new RegistryError('invalid-server-json', `the MCPB package ${shortUrl(pkg.identifier)} has no fileSha256: it cannot be verified, so it is not installed`);
  checkUrl(pkg.identifier);
  const dir = path.join(storeDir, want);
  if (!existsSync(path.join(dir, 'manifest.json'))) {
    const { body } = await getBytes(pkg.identifier, { maxBytes: MAX_BUNDLE_BYTES, timeoutMs: 300_000, ...(signal ? { signal } : {}) });
    const got = createHash('sha256').update(body).digest('hex');
    if (got !== want) {
      throw new RegistryError('checksum', `the bundle ${shortUrl(pkg.identifier)} does not match its fileSha256 (expected ${want}, got ${got}); nothing was installed`);
    }
    unpack(Buffer.from(body), dir, pkg.identifier);
  }
  return { dir, sha256: want, ...launchOf(dir) };
}

/** HTTPS only, except a loopback host (a registry on this machine). */
function checkUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new RegistryError('invalid-server-json', `the MCPB identifier is not a URL: ${JSON.stringify(url.slice(0, 200))}`);
  }
  const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(u.hostname);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback)) throw new RegistryError('unsupported', `the MCPB bundle must be downloaded over https (${shortUrl(url)})`);
}

function unpack(zip: Buffer, dir: string, url: string): void {
  let entries;
  try {
    entries = readZip(zip);
  } catch (err) {
    throw new RegistryError('bad-response', `the bundle ${shortUrl(url)} cannot be unpacked: ${(err as Error).message}`);
  }
  if (!entries.some((e) => e.name === 'manifest.json')) throw new RegistryError('bad-response', `the bundle ${shortUrl(url)} has no manifest.json`);
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  for (const e of entries) {
    const file = path.join(tmp, e.name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, e.data, { mode: 0o700 });
  }
  mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
}

/** The command of an unpacked bundle, from its manifest. */
function launchOf(dir: string): BundleLaunch {
  let m: Manifest;
  try {
    m = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  } catch (err) {
    throw new RegistryError('bad-response', `the bundle's manifest.json is not JSON: ${(err as Error).message.slice(0, 200)}`);
  }
  const sub = (s: string) => s.split('${__dirname}').join(dir);
  const c = m.server?.mcp_config;
  if (c?.command) {
    return { command: sub(c.command), args: (c.args ?? []).map(sub), env: Object.fromEntries(Object.entries(c.env ?? {}).map(([k, v]) => [k, sub(v)])) };
  }
  const entry = m.server?.entry_point;
  if (!entry) throw new RegistryError('bad-response', 'the bundle\'s manifest.json says neither server.mcp_config.command nor server.entry_point');
  const file = path.join(dir, entry);
  if (m.server?.type === 'node') return { command: 'node', args: [file], env: {} };
  if (m.server?.type === 'python') return { command: 'python3', args: [file], env: {} };
  return { command: file, args: [], env: {} };
}
