/**
 * A settled request is garbage at once: the registry's table of requests in flight keeps nothing
 * of it reachable. With a Map there (V8 links the hash tables a churning Map leaves behind to
 * their successors until a full collection), the young generation promoted most of every
 * request's objects: ~100 MB per 200,000 calls at 64 in flight, scavenges ten times as long,
 * a third of the client's CPU per call (docs/performance.md).
 *
 * Measured in a child process (V8's own account, `--trace-gc-nvp`: the bytes each scavenge
 * promoted): the built registry against the same churn through a plain Map, on the same Node.
 * Bytes, not time: nothing here depends on the machine's speed.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');
const script = path.join(root, 'test', 'support', 'registry-churn.mjs');
const CALLS = 400_000;

/** Bytes promoted by the young generation while `registry` ('map': the yardstick) churned. */
function promoted(registry: string): number {
  const r = spawnSync(process.execPath, ['--trace-gc-nvp', script, registry, String(CALLS)], { encoding: 'utf8', timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  expect(Number(/^DONE (\d+)$/m.exec(r.stdout)?.[1])).toBeGreaterThanOrEqual(CALLS);
  let bytes = 0;
  for (const m of r.stdout.matchAll(/\bgc=s\b.*?\bpromoted=(\d+)/g)) bytes += Number(m[1]);
  return bytes;
}

describe('request registry: what a settled request leaves behind', () => {
  it('promotes a fraction of what a Map-keyed table of requests in flight does', { timeout: 180_000 }, () => {
    const withMap = promoted('map');
    const withRegistry = promoted(path.join(root, 'dist', 'protocol', 'registry.js'));
    console.log(`[gc] ${CALLS} calls at 64 in flight: promoted ${(withRegistry / 1e6).toFixed(1)} MB (a Map: ${(withMap / 1e6).toFixed(1)} MB)`);
    // (measured: ~8 MB against ~60 MB, most of the 8 while the process warms up)
    expect(withMap).toBeGreaterThan(20e6);
    expect(withRegistry).toBeLessThan(withMap / 3);
  });
});
