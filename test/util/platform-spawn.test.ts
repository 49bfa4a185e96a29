/**
 * Starting a stdio server on Windows, proven without Windows: command resolution (PATH,
 * PATHEXT, `#!`), the cmd.exe route for batch files and the escaping of every argument are
 * pure functions of (platform, env, fs), run here with those injected. What cmd.exe and the C
 * runtime make of the escaped line is checked with a model of their documented parsing rules
 * (test/support/cmd-model.ts): each argument must come back unchanged, and cmd.exe must see no
 * operator (`&`, `|`, `<`, `>`) of its own in it.
 */
import { describe, expect, it } from 'vitest';
import { escapeCmdArgument, escapeCmdCommand, findOnPath, planSpawn, type CommandContext, type CommandFs } from '../../src/transport/spawn/command.js';
import { batchArguments, cmdSlashC, crtArgv, expandPercent, parseSpecial, tildeParam } from '../support/cmd-model.js';

const NODEJS = 'C:\\Program Files\\nodejs';
const NPX_CMD = `${NODEJS}\\npx.cmd`;
/** The name as found: the stem as written, the extension as PATHEXT spells it (what Windows opens). */
const NPX_FOUND = `${NODEJS}\\npx.CMD`;
/** npm's npx.cmd forwards its arguments with `%*` (a second parse of the line). */
const NPX_CMD_TEXT = '@ECHO OFF\r\nSETLOCAL\r\nSET "NODE_EXE=%~dp0\\node.exe"\r\n"%NODE_EXE%" "%NPX_CLI_JS%" %*\r\n';

/** A file system of the given files (path → contents), case-insensitive like NTFS. */
function fakeFs(files: Record<string, string>): CommandFs {
  const byKey = new Map(Object.entries(files).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    isFile: (f) => byKey.has(f.toLowerCase()),
    head: (f, n) => byKey.get(f.toLowerCase())?.slice(0, n),
  };
}

const winEnv = { Path: `C:\\Windows\\system32;"${NODEJS}";C:\\Users\\u\\AppData\\Roaming\\npm`, PATHEXT: '.COM;.EXE;.BAT;.CMD', ComSpec: 'C:\\Windows\\system32\\cmd.exe', SystemRoot: 'C:\\Windows' };
const files = {
  [NPX_CMD]: NPX_CMD_TEXT,
  [`${NODEJS}\\npx`]: '#!/bin/sh\nexec node "$basedir/node_modules/npm/bin/npx-cli.js" "$@"\n',
  [`${NODEJS}\\node.exe`]: 'MZ',
  'C:\\Windows\\system32\\cmd.exe': 'MZ',
  'C:\\Users\\u\\AppData\\Roaming\\npm\\mcp-server-git.cmd': '@ECHO off\r\nGOTO start\r\n:start\r\n"%_prog%" "%dp0%\\node_modules\\mcp-server-git\\dist\\index.js" %*\r\n',
  'C:\\work\\app\\tools\\serve.bat': '@echo off\r\necho %1\r\n',
  // Batch files that put their arguments into a line of their own: by number, without quotes, or all of them after 8 KiB.
  'C:\\work\\app\\tools\\by-number.cmd': '@echo off\r\n"C:\\nodejs\\node.exe" server.js %1 %2\r\n',
  'C:\\work\\app\\tools\\tilde.cmd': '@echo off\r\n"C:\\nodejs\\node.exe" server.js %~1 %~2\r\n',
  'C:\\work\\app\\tools\\late.cmd': `@echo off\r\n${'rem a long licence header, line after line\r\n'.repeat(220)}"C:\\nodejs\\node.exe" server.js %*\r\n`,
  'C:\\work\\app\\node_modules\\.bin\\server.cmd': '@"%~dp0\\..\\server\\cli.js" %~1\r\n',
  'C:\\work\\app\\bin\\server': '#!/usr/bin/env node\nrequire("../../dist/index.js")\n',
  'C:\\work\\app\\npx.cmd': '@echo planted\r\n',
};
const win = (over: Partial<CommandContext> = {}): CommandContext => ({ platform: 'win32', env: winEnv, cwd: 'C:\\work\\app', fs: fakeFs(files), ...over });

describe('command resolution per platform', () => {
  it('Linux and macOS: the command goes to spawn as given (the kernel searches PATH), arguments untouched', () => {
    for (const platform of ['linux', 'darwin'] as const) {
      expect(planSpawn('npx', ['-y', 'a&b'], { ...win(), platform })).toEqual({ file: 'npx', args: ['-y', 'a&b'], windowsVerbatimArguments: false });
    }
  });

  it('Windows: `npx` is found as npx.cmd by PATHEXT on PATH (spelled `Path`, quoted entry) and run through cmd.exe /d /s /c, verbatim', () => {
    const plan = planSpawn('npx', ['-y', '@modelcontextprotocol/server-everything'], win());
    expect(plan.resolved).toBe(NPX_FOUND);
    expect(plan.file).toBe('C:\\Windows\\system32\\cmd.exe');
    expect(plan.windowsVerbatimArguments).toBe(true);
    expect(plan.args.slice(0, 3)).toEqual(['/d', '/s', '/c']);
    expect(plan.args[3]).toBe('"C:\\Program^ Files\\nodejs\\npx.CMD ^^^"-y^^^" ^^^"@modelcontextprotocol/server-everything^^^""');
  });

  it('Windows: PATHEXT order and PATH order decide; a name with an extension is tried as given first', () => {
    const fs = fakeFs({ ...files, [`${NODEJS}\\npx.exe`]: 'MZ', 'C:\\Windows\\system32\\npx.bat': '' });
    expect(findOnPath('npx', win({ fs }))).toBe('C:\\Windows\\system32\\npx.BAT'); // first PATH dir wins
    expect(findOnPath('npx', win({ fs, env: { ...winEnv, Path: `"${NODEJS}"` } }))).toBe(`${NODEJS}\\npx.EXE`); // .EXE before .CMD
    expect(findOnPath('npx', win({ fs, env: { ...winEnv, Path: `"${NODEJS}"`, PATHEXT: '.cmd;.exe' } }))).toBe(NPX_CMD);
    expect(findOnPath('node.exe', win())).toBe(`${NODEJS}\\node.exe`);
    expect(findOnPath('NODE', win())).toBe(`${NODEJS}\\NODE.EXE`);
  });

  it('Windows: the project directory is not searched before PATH (a planted npx.cmd is not run)', () => {
    expect(findOnPath('npx', win())).toBe(NPX_FOUND);
    expect(findOnPath('npx', win({ env: { ...winEnv, Path: '' } }))).toBeUndefined();
    expect(findOnPath('npx', win({ env: { ...winEnv, Path: '.;tools' } }))).toBeUndefined(); // relative PATH entries are skipped
  });

  it('Windows: a program (.exe) is spawned directly, without a shell', () => {
    expect(planSpawn('node', ['server.js', 'a&b'], win())).toEqual({ file: `${NODEJS}\\node.EXE`, args: ['server.js', 'a&b'], windowsVerbatimArguments: false, resolved: `${NODEJS}\\node.EXE` });
  });

  it('Windows: a relative path is looked up against the server cwd only; a .bat that does not forward %* is escaped twice too (its %1 is parsed again)', () => {
    const plan = planSpawn('tools\\serve', ['a b'], win());
    expect(plan.resolved).toBe('C:\\work\\app\\tools\\serve.BAT');
    expect(plan.args[3]).toBe('"C:\\work\\app\\tools\\serve.BAT ^^^"a^^^ b^^^""');
    expect(findOnPath('tools/serve.bat', win({ cwd: 'D:\\elsewhere' }))).toBeUndefined();
  });

  it("Windows: npm's node_modules\\.bin shims are escaped twice (cross-spawn's rule), whatever their text", () => {
    expect(planSpawn('node_modules\\.bin\\server', ['x'], win()).args[3]).toBe('"C:\\work\\app\\node_modules\\.bin\\server.CMD ^^^"x^^^""');
  });

  it('Windows: an extensionless file with `#!/usr/bin/env node` runs its interpreter', () => {
    expect(planSpawn('bin/server', ['--stdio'], win())).toEqual({
      file: `${NODEJS}\\node.EXE`,
      args: ['C:\\work\\app\\bin\\server', '--stdio'],
      windowsVerbatimArguments: false,
      resolved: `${NODEJS}\\node.EXE`,
    });
  });

  it('Windows: a command that is not found is spawned as given, so Node reports ENOENT (cmd.exe is not asked to guess)', () => {
    expect(planSpawn('no-such-server', ['x'], win())).toEqual({ file: 'no-such-server', args: ['x'], windowsVerbatimArguments: false });
  });

  it('Windows: without ComSpec, cmd.exe is taken from SystemRoot; without PATHEXT the default list is used', () => {
    const env = { PATH: `${NODEJS}`, SYSTEMROOT: 'D:\\Win' };
    expect(planSpawn('npx', [], win({ env })).file).toBe('D:\\Win\\System32\\cmd.exe');
  });

  it('Windows: an argument with a line break cannot reach a batch file intact and is refused (EINVAL)', () => {
    expect(() => planSpawn('npx', ['a\nb'], win())).toThrow(expect.objectContaining({ code: 'EINVAL' }));
    expect(() => planSpawn('node', ['a\nb'], win())).not.toThrow(); // a program gets it through CreateProcess
  });
});

describe('cmd.exe escaping (cross-spawn\'s algorithm)', () => {
  it('quotes for the C runtime, then ^-escapes every cmd.exe metacharacter', () => {
    expect(escapeCmdArgument('a b', false)).toBe('^"a^ b^"');
    expect(escapeCmdArgument('he said "hi"', false)).toBe('^"he^ said^ \\^"hi\\^"^"');
    expect(escapeCmdArgument('C:\\dir\\', false)).toBe('^"C:\\dir\\\\^"');
    expect(escapeCmdArgument('a\\\\"b', false)).toBe('^"a\\\\\\\\\\^"b^"');
    expect(escapeCmdArgument('50%', false)).toBe('^"50^%^"');
    expect(escapeCmdArgument('a&b', true)).toBe('^^^"a^^^&b^^^"');
    expect(escapeCmdArgument('', false)).toBe('^"^"');
    expect(escapeCmdCommand('C:\\Program Files (x86)\\a&b\\x.cmd')).toBe('C:\\Program^ Files^ ^(x86^)\\a^&b\\x.cmd');
  });

  /** What cmd.exe expands `%…%` with (the child's environment). */
  const env = { ...winEnv, FOO: 'injected' };
  const hostile = [
    'plain', 'a b', '', ' ', '"', '""', '"quoted"', 'he said "hi"', 'a&b', 'a&&b', 'a|b', 'a||b', '>out.txt', '<in.txt', '2>&1',
    'a^b', '^', '^^', '100%', '%', '%%', '%PATH%', '%FOO%', '%path%', '^%FOO^%', '!FOO!', '(x)', ')', '[a]', 'a,b;c=d', '`', '*?',
    'a"&calc', 'x" & calc & "', '\\" & calc', '"&calc.exe&"', '" | whoami', '\\\\"&echo pwned', 'C:\\dir\\', 'C:\\dir\\\\', '\\\\server\\share',
    'a\\\\"b', 'tab\there', '日本語 ünïcode', '--flag="&x"', '%FOO%"&echo "%FOO%',
  ];

  /**
   * What `node.exe` gets from a batch file whose line `"C:\nodejs\node.exe" server.js <forwarded>`
   * puts in what `forward` takes from the batch file's arguments (phase 1 puts the text in without
   * expanding it again, phase 2 parses the line a second time); cmd.exe must see no operator in
   * either parse.
   */
  function throughBatch(command: string, arg: string, forward: (b: ReturnType<typeof batchArguments>) => string): string[] {
    const plan = planSpawn(command, [arg, 'next'], win({ env }));
    const first = cmdSlashC(plan.args, env);
    expect(first.operators, `first parse of ${JSON.stringify(arg)}`).toEqual([]);
    const second = parseSpecial(`"C:\\nodejs\\node.exe" server.js ${forward(batchArguments(first.text.slice(first.commandEnd)))}`);
    expect(second.operators, `second parse of ${JSON.stringify(arg)}`).toEqual([]);
    return crtArgv(second.text).slice(2);
  }

  // cmd.exe splits %1…%9 counting raw quotes: an argument holding a `"` may reach the program
  // changed (or run into the next one), never as a second command.
  it('a batch file that forwards %1 %2: no operator in either parse for any argument; one without a quote reaches the program unchanged', () => {
    for (const arg of hostile) {
      const got = throughBatch('tools\\by-number', arg, (b) => `${b.params[0] ?? ''} ${b.params[1] ?? ''}`);
      if (!arg.includes('"')) expect(got, JSON.stringify(arg)).toEqual([arg, 'next']);
    }
  });

  it('a batch file that forwards %~1 %~2: no operator in either parse for any argument; one without a quote reaches the program unchanged', () => {
    for (const arg of hostile) {
      const got = throughBatch('tools\\tilde', arg, (b) => `${tildeParam(b.params[0] ?? '')} ${tildeParam(b.params[1] ?? '')}`);
      if (!arg.includes('"')) expect(got, JSON.stringify(arg)).toEqual([arg, 'next']);
    }
  });

  it('a batch file whose %* comes after its first 8 KiB is escaped as re-parsing: arguments unchanged, no operator', () => {
    expect(files['C:\\work\\app\\tools\\late.cmd'].indexOf('%*')).toBeGreaterThan(8192);
    for (const arg of hostile) expect(throughBatch('tools\\late', arg, (b) => b.all), JSON.stringify(arg)).toEqual([arg, 'next']);
  });

  it('escaped once (what a batch file got before), `a"&calc` forwarded by %1 starts a second command', () => {
    const once = escapeCmdArgument('a"&calc', false);
    const first = parseSpecial(expandPercent(once, env));
    expect(first.operators).toEqual([]);
    expect(parseSpecial(`"node.exe" server.js ${batchArguments(first.text).params[0]}`).operators).toEqual(['&']);
  });

  it('through npx.cmd (its %* parsed a second time) the argument reaches node unchanged, with no operator in either parse', () => {
    for (const arg of hostile) {
      const plan = planSpawn('npx', ['-y', arg], win({ env }));
      const first = cmdSlashC(plan.args, env);
      expect(first.operators, JSON.stringify(arg)).toEqual([]);
      // npx.cmd's last line: phase 1 puts %* in (not expanded again), phase 2 parses the result.
      const second = parseSpecial(`"C:\\nodejs\\node.exe" "npx-cli.js" ${first.text.slice(first.commandEnd).trimStart()}`);
      expect(second.operators, JSON.stringify(arg)).toEqual([]);
      expect(crtArgv(second.text), JSON.stringify(arg)).toEqual(['C:\\nodejs\\node.exe', 'npx-cli.js', '-y', arg]);
    }
  });

  it('the doubling is what protects a %*-forwarding shim: escaped once, a quote in the argument lets cmd.exe run a second command', () => {
    const once = `^"-y^" ${escapeCmdArgument('x" & calc & "', false)}`;
    const first = parseSpecial(expandPercent(once, env));
    expect(first.operators).toEqual([]);
    expect(parseSpecial(`"node.exe" "npx-cli.js" ${first.text}`).operators).toEqual(['&', '&']);
  });

  it('the model itself: cmd.exe expands a set %VAR% and acts on an unescaped operator', () => {
    expect(expandPercent('echo %FOO% %NOPE% 100%', env)).toBe('echo injected %NOPE% 100%');
    expect(parseSpecial('a ^& b "c & d" & e').operators).toEqual(['&']);
    expect(crtArgv('"a b" c\\"d "e\\\\" f')).toEqual(['a b', 'c"d', 'e\\', 'f']);
  });
});
