/**
 * The example hosts' programs built once per source: a build folder in the temp dir named by the
 * SHA-256 of the example's files and of the toolchain's version, shared by every test file that
 * builds that example (examples/go-host: test/serve/serve-go and serve-oauth; examples/rust-host:
 * test/serve/serve-rust's `cargo build` and `cargo test`). A build is a function of its source and
 * toolchain, so a second build of the same pair proves nothing the first did not; each run of a
 * program still runs it. Two files wanting the same build at once: one builds, the other waits for
 * it (a lock file naming the builder's pid; a lock whose builder is gone, or 15 minutes old, is taken over).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { alive, root } from './cli-process.js';

/** The files of `dir` (recursively, sorted, without `target/`), hashed with `extra` (the toolchain's version). */
function sourceKey(dir: string, extra: string): string {
  const hash = createHash('sha256').update(extra);
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'target') walk(p);
      } else {
        hash.update(`${path.relative(dir, p)}\0`).update(fs.readFileSync(p)).update('\0');
      }
    }
  };
  walk(dir);
  return hash.digest('hex').slice(0, 16);
}

/** The build folder of examples/`example` for `toolchain` (its version line), made if absent. */
export function buildDir(example: string, toolchain: string): string {
  const dir = path.join(os.tmpdir(), `mcpwire-build-${example}-${sourceKey(path.join(root, 'examples', example), toolchain)}`);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * The build folder of `example` for `toolchain` (its version line): `build(folder)` runs in it
 * under the folder's lock unless `done(folder)` already holds; waits for another process's build
 * of the same key instead of repeating it.
 */
export async function sharedBuild(example: string, toolchain: string, done: (dir: string) => boolean, build: (dir: string) => Promise<void> | void): Promise<string> {
  const dir = buildDir(example, toolchain);
  const lock = path.join(dir, 'lock');
  for (;;) {
    if (done(dir)) return dir;
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
    } catch {
      let stale: boolean;
      try {
        const holder = Number(fs.readFileSync(lock, 'utf8') || 0);
        // a builder that is gone, or a lock older than any build (its pid reused since)
        stale = (holder > 0 && !alive(holder)) || Date.now() - fs.statSync(lock).mtimeMs > 15 * 60_000;
      } catch {
        continue; // released meanwhile
      }
      if (stale) fs.rmSync(lock, { force: true });
      else await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    try {
      if (!done(dir)) await build(dir);
      return dir;
    } finally {
      fs.rmSync(lock, { force: true });
    }
  }
}

export const version = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8' }).trim();

/** An environment for `go` that keeps its cache and modules in `dir`, no toolchain download, no cgo. */
export const goEnv = (dir: string) => ({ ...process.env, GOCACHE: path.join(dir, 'cache'), GOPATH: path.join(dir, 'gopath'), GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', CGO_ENABLED: '0' });

/** examples/go-host built with the `go` on PATH (once per source and Go version): the program's path. */
export async function goHost(): Promise<string> {
  const dir = await sharedBuild('go-host', version('go', ['version']), (d) => fs.existsSync(path.join(d, 'go-host')), (d) => {
    const partial = path.join(d, `go-host.${process.pid}`);
    execFileSync('go', ['build', '-o', partial, '.'], { cwd: path.join(root, 'examples/go-host'), env: goEnv(d), stdio: 'pipe' });
    fs.renameSync(partial, path.join(d, 'go-host'));
  });
  return path.join(dir, 'go-host');
}
