/**
 * The environment a stdio server inherits and the ladder that ends it, per platform — pure
 * functions of (platform, env) run here with Windows, macOS and Linux injected. The Linux
 * ladder is also run for real in test/transport/stdio-transport.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { childEnv, safeInheritedEnv } from '../../src/transport/env.js';
import { killsGroupAfterExit, killStep, shutdownLadder, type KillStep } from '../../src/transport/spawn/kill.js';
import { notFoundHint } from '../../src/transport/spawn/not-found.js';
import { runKillStep } from '../../src/transport/spawn/system.js';

/** A Windows parent environment as `{ ...process.env }` spells it there (mixed case). */
const windowsParent = {
  ALLUSERSPROFILE: 'C:\\ProgramData',
  APPDATA: 'C:\\Users\\u\\AppData\\Roaming',
  ComSpec: 'C:\\Windows\\system32\\cmd.exe',
  HOMEDRIVE: 'C:',
  HOMEPATH: '\\Users\\u',
  LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local',
  Path: 'C:\\Windows\\system32;C:\\Program Files\\nodejs',
  PATHEXT: '.COM;.EXE;.BAT;.CMD',
  ProgramData: 'C:\\ProgramData',
  ProgramFiles: 'C:\\Program Files',
  'ProgramFiles(x86)': 'C:\\Program Files (x86)',
  SystemRoot: 'C:\\Windows',
  TEMP: 'C:\\Users\\u\\AppData\\Local\\Temp',
  USERPROFILE: 'C:\\Users\\u',
  windir: 'C:\\Windows',
  GITHUB_TOKEN: 'ghp_secret',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
};

describe('the inherited environment per platform', () => {
  it("Windows: the profile, system and program folders, PATH/PATHEXT and ComSpec pass in the parent's spelling; secrets do not", () => {
    const env = childEnv(undefined, false, windowsParent, 'win32');
    expect(env).toEqual({
      APPDATA: 'C:\\Users\\u\\AppData\\Roaming',
      ComSpec: 'C:\\Windows\\system32\\cmd.exe',
      HOMEDRIVE: 'C:',
      HOMEPATH: '\\Users\\u',
      LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local',
      Path: 'C:\\Windows\\system32;C:\\Program Files\\nodejs',
      PATHEXT: '.COM;.EXE;.BAT;.CMD',
      ProgramData: 'C:\\ProgramData',
      ProgramFiles: 'C:\\Program Files',
      'ProgramFiles(x86)': 'C:\\Program Files (x86)',
      SystemRoot: 'C:\\Windows',
      TEMP: 'C:\\Users\\u\\AppData\\Local\\Temp',
      USERPROFILE: 'C:\\Users\\u',
      windir: 'C:\\Windows',
    });
  });

  it('Windows: an explicit PATH replaces the inherited `Path` (one variable, not two spellings)', () => {
    const env = childEnv({ PATH: 'D:\\tools', Temp: 'D:\\tmp' }, false, windowsParent, 'win32');
    expect(Object.keys(env).filter((k) => k.toUpperCase() === 'PATH')).toEqual(['PATH']);
    expect(env.PATH).toBe('D:\\tools');
    expect(Object.keys(env).filter((k) => k.toUpperCase() === 'TEMP')).toEqual(['Temp']);
  });

  it('macOS and Linux: the POSIX set (TMPDIR is where macOS keeps per-user temp files); Windows names do not pass', () => {
    const parent = { HOME: '/Users/u', PATH: '/usr/bin', TMPDIR: '/var/folders/x/T/', SHELL: '/bin/zsh', APPDATA: 'x', GITHUB_TOKEN: 't', BASH_FUNC_x: '() { :; }' };
    for (const platform of ['darwin', 'linux'] as const) {
      expect(childEnv({ Path: 'kept as written' }, false, parent, platform)).toEqual({ HOME: '/Users/u', PATH: '/usr/bin', TMPDIR: '/var/folders/x/T/', SHELL: '/bin/zsh', Path: 'kept as written' });
    }
    expect(safeInheritedEnv('win32')).toEqual(expect.arrayContaining(['APPDATA', 'SYSTEMROOT', 'PATH', 'PATHEXT', 'USERPROFILE', 'TEMP', 'LOCALAPPDATA', 'PROGRAMFILES', 'COMSPEC']));
  });

  it('inheritEnv passes everything, on every platform', () => {
    expect(childEnv(undefined, true, windowsParent, 'win32')).toEqual(windowsParent);
  });
});

describe('the close ladder per platform (basic.lifecycle#15)', () => {
  const waits = { stdinCloseWaitMs: 2000, sigtermWaitMs: 1500 };

  it('Linux and macOS: stdin, then SIGTERM and SIGKILL to the process group (-pid); the group is reaped after the exit', () => {
    for (const platform of ['linux', 'darwin'] as const) {
      expect(shutdownLadder(platform, 4242, waits)).toEqual([
        { kind: 'close-stdin', waitMs: 2000 },
        { kind: 'end-tree', strength: 'terminate', step: { kind: 'signal', pid: -4242, signal: 'SIGTERM' }, waitMs: 1500 },
        { kind: 'end-tree', strength: 'kill', step: { kind: 'signal', pid: -4242, signal: 'SIGKILL' } },
      ]);
      expect(killsGroupAfterExit(platform)).toBe(true);
    }
  });

  it("Windows: stdin, then `taskkill /T` and `taskkill /T /F` on the server's tree, from %SystemRoot%\\System32", () => {
    expect(shutdownLadder('win32', 4242, waits, { SystemRoot: 'D:\\Win' })).toEqual([
      { kind: 'close-stdin', waitMs: 2000 },
      { kind: 'end-tree', strength: 'terminate', step: { kind: 'run', file: 'D:\\Win\\System32\\taskkill.exe', args: ['/PID', '4242', '/T'] }, waitMs: 1500 },
      { kind: 'end-tree', strength: 'kill', step: { kind: 'run', file: 'D:\\Win\\System32\\taskkill.exe', args: ['/PID', '4242', '/T', '/F'] } },
    ]);
    // The 'exit' hook's last resort is the forced tree kill too.
    expect(killStep('win32', 7, 'kill', {})).toEqual({ kind: 'run', file: 'C:\\Windows\\System32\\taskkill.exe', args: ['/PID', '7', '/T', '/F'] });
    // An exited pid's tree cannot be found (pids are reused): nothing is run after the exit.
    expect(killsGroupAfterExit('win32')).toBe(false);
  });

  it('a process that never got a pid has no tree to end (the transport falls back to child.kill)', () => {
    expect(shutdownLadder('win32', undefined, waits).filter((r) => r.kind === 'end-tree').map((r) => r.kind === 'end-tree' && r.step)).toEqual([undefined, undefined]);
  });
});

describe('a command not found, per platform', () => {
  it("macOS: a PATH without Homebrew's folders (an app started from the Dock) is named, with the full-path fix", () => {
    expect(notFoundHint('darwin', 'npx', { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' })).toBe(
      "PATH (/usr/bin:/bin:/usr/sbin:/sbin) has neither /opt/homebrew/bin nor /usr/local/bin, as for an app started from the Dock or Finder: give the full path (e.g. /opt/homebrew/bin/npx) or set PATH in the server's env",
    );
    expect(notFoundHint('darwin', 'npx', { PATH: '/opt/homebrew/bin:/usr/bin' })).toBeUndefined();
  });

  it('Windows: the PATHEXT lookup is named; Linux and paths with a slash get no hint', () => {
    expect(notFoundHint('win32', 'uvx', { Path: 'C:\\x', PATHEXT: '.EXE;.CMD' })).toBe('looked up on PATH with the extensions of PATHEXT (.EXE;.CMD); give the full path or add its folder to PATH');
    expect(notFoundHint('linux', 'npx', { PATH: '/usr/bin' })).toBeUndefined();
    expect(notFoundHint('darwin', './server', { PATH: '/usr/bin' })).toBeUndefined();
  });
});

describe('running a rung of the ladder (real processes)', () => {
  const node = process.execPath;
  const exits = (code: number): KillStep => ({ kind: 'run', file: node, args: ['-e', `process.exit(${code})`] });

  it('a kill program that fails (taskkill found nothing, or is missing) falls back; one that succeeds does not', async () => {
    const calls: string[] = [];
    runKillStep(exits(0), () => calls.push('ok-sync'), true);
    runKillStep(exits(128), () => calls.push('128-sync'), true);
    runKillStep({ kind: 'run', file: '/nonexistent/taskkill.exe', args: [] }, () => calls.push('missing-sync'), true);
    expect(calls).toEqual(['128-sync', 'missing-sync']);
    await new Promise<void>((resolve) => runKillStep(exits(1), resolve));
    await new Promise<void>((resolve) => runKillStep({ kind: 'run', file: '/nonexistent/taskkill.exe', args: [] }, resolve));
  });

  it('a signal to a process group that is gone falls back at once', () => {
    let fellBack = false;
    // A pid far above any pid_max: no such group.
    runKillStep({ kind: 'signal', pid: -2_000_000_000, signal: 'SIGTERM' }, () => (fellBack = true));
    expect(fellBack).toBe(true);
  });
});
