/**
 * `mcpwire check --robustness`: a bounded battery of hostile but well-framed inputs — wrong
 * parameter types, huge strings and arrays (under SIZE_CAP), deep nesting, unknown fields,
 * unknown methods, requests after a cancel, a ping flood, and over stdio invalid UTF-8 and
 * duplicate ids. Each check runs on a fresh connection and reports a crash (the connection
 * closed), a hang (no answer in time), a wrong error code, with the input that caused it; the
 * last one judges every error message these inputs drew for stack traces and filesystem paths.
 * Safe by default: no tool is ever called by a name the server lists (every tools/call names a
 * tool that does not exist), and nothing but reads and pings otherwise.
 */
import { excerpt } from '../../jsonrpc/types.js';
import type { CheckContext } from '../core/context.js';
import { isObject } from '../core/context.js';
import { describeOutcome, type Outcome, type Probe } from '../core/probe.js';
import { withRawStdio } from '../basics/stdio-raw.js';
import { BlockedError, notApplicable, pass, violated, type CheckDef, type Verdict } from '../core/types.js';

/** The largest single input sent (bytes of JSON). */
export const SIZE_CAP = 256 * 1024;
/** Pings in the flood. */
export const FLOOD = 200;
const NO_TOOL = 'mcpwire-check-robustness-no-such-tool';

/** Every error the battery drew, with the input that drew it (judged by robustness.error-leaks). */
const drawn = new WeakMap<CheckContext, Array<{ input: string; text: string }>>();

interface Attempt {
  input: string;
  method: string;
  params?: Record<string, unknown>;
  /** The error codes that are right for this input (undefined: any answer will do). */
  codes?: number[];
}

async function freshProbe(ctx: CheckContext): Promise<Probe> {
  const p = await ctx.open();
  const init = await p.initialize();
  if (init.kind !== 'result') throw new BlockedError(`blocked: initialize got ${describeOutcome(init)} (see lifecycle.initialize-result)`);
  await p.initialized();
  return p;
}

/** The capabilities the server declares (the shared session's): no input goes to an undeclared one. */
async function declares(ctx: CheckContext): Promise<(c: string) => boolean> {
  const s = await ctx.session();
  return (c) => isObject(s.capabilities[c]);
}

function record(ctx: CheckContext, input: string, o: Outcome): void {
  if (o.kind !== 'error') return;
  const list = drawn.get(ctx) ?? [];
  list.push({ input, text: `${o.error.message} ${o.error.data === undefined ? '' : JSON.stringify(o.error.data)}` });
  drawn.set(ctx, list);
}

/** Sends each input on a fresh connection; a crash or hang fails, a wrong code warns. */
async function battery(ctx: CheckContext, attempts: Attempt[], boundMs = Math.min(ctx.timeoutMs, 10_000)): Promise<Verdict> {
  if (attempts.length === 0) return notApplicable('the server declares no capability these inputs are for');
  const p = await freshProbe(ctx);
  let wrong: { a: Attempt; o: Outcome } | undefined;
  for (const a of attempts) {
    const o = await p.request(a.method, a.params, { timeoutMs: boundMs });
    record(ctx, a.input, o);
    // An HTTP error status (413 for a body past the server's limit) fails the request, not the connection: ask a ping.
    const alive = o.kind === 'timeout' || (o.kind === 'closed' && p.closed) ? o : await p.request('ping', undefined, { timeoutMs: boundMs });
    if (alive.kind === 'closed') return violated(`the server crashed (connection closed: ${alive.reason}) after ${a.input}`, a.input, { level: 'MUST', clause: 'jsonrpc-2.0 §5' });
    if (alive.kind === 'timeout') return violated(`the server stopped answering (no response within ${boundMs} ms) after ${a.input}`, a.input, { level: 'MUST', clause: 'jsonrpc-2.0 §5' });
    if (wrong === undefined && a.codes !== undefined && !(o.kind === 'error' && a.codes.includes(o.error.code))) wrong = { a, o };
  }
  if (wrong !== undefined) return violated(`${wrong.a.input} SHOULD get error ${wrong.a.codes!.join(' or ')}; it got ${describeOutcome(wrong.o)}`, wrong.o.kind === 'error' || wrong.o.kind === 'result' ? wrong.o.message?.message : undefined);
  return pass(`${attempts.length} inputs, each answered, the server alive after each`);
}

function robust(def: Omit<CheckDef, 'robustness'>): CheckDef {
  return { ...def, robustness: true };
}

const INVALID = [-32602, -32600];

const wrongTypes = robust({
  id: 'robustness.wrong-types',
  title: 'parameters of the wrong type get -32602 Invalid params; the server survives them',
  clause: 'jsonrpc-2.0 §5.1',
  level: 'SHOULD',
  run: async (ctx) => {
    const has = await declares(ctx);
    return battery(ctx, [
      ...(has('tools')
        ? [
            { input: 'tools/call with "name": 42', method: 'tools/call', params: { name: 42, arguments: {} }, codes: INVALID },
            { input: 'tools/call with "arguments": "not an object"', method: 'tools/call', params: { name: NO_TOOL, arguments: 'not an object' }, codes: INVALID },
            { input: 'tools/list with "cursor": 7', method: 'tools/list', params: { cursor: 7 }, codes: INVALID },
          ]
        : []),
      ...(has('resources') ? [{ input: 'resources/read with "uri": {}', method: 'resources/read', params: { uri: {} }, codes: INVALID }] : []),
      ...(has('prompts') ? [{ input: 'prompts/get with "name": null', method: 'prompts/get', params: { name: null }, codes: INVALID }] : []),
    ]);
  },
});

const huge = robust({
  id: 'robustness.huge-inputs',
  title: `huge strings and arrays (up to ${SIZE_CAP / 1024} KiB) are answered, not a crash or a hang`,
  clause: 'jsonrpc-2.0 §5',
  level: 'MUST',
  run: async (ctx) => {
    const has = await declares(ctx);
    return battery(ctx, [
      ...(has('tools')
        ? [
            { input: `tools/call of an unknown tool named by a ${SIZE_CAP / 1024} KiB string`, method: 'tools/call', params: { name: 'x'.repeat(SIZE_CAP - 100), arguments: {} } },
            { input: 'tools/call with an argument array of 20000 numbers', method: 'tools/call', params: { name: NO_TOOL, arguments: { list: Array.from({ length: 20_000 }, (_, i) => i) } } },
          ]
        : []),
      { input: `ping with a ${SIZE_CAP / 1024} KiB string in _meta`, method: 'ping', params: { _meta: { 'mcpwire.dev/pad': 'y'.repeat(SIZE_CAP - 100) } } },
    ]);
  },
});

function nested(depth: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

const deep = robust({
  id: 'robustness.deep-nesting',
  title: 'deeply nested parameters (depth 1000) are answered, not a crash or a hang',
  clause: 'jsonrpc-2.0 §5',
  level: 'MUST',
  run: async (ctx) => {
    const has = await declares(ctx);
    return battery(ctx, [
      ...(has('tools') ? [{ input: 'tools/call with arguments nested 1000 objects deep', method: 'tools/call', params: { name: NO_TOOL, arguments: { deep: nested(1000) } } }] : []),
      { input: 'ping with _meta nested 1000 objects deep', method: 'ping', params: { _meta: { 'mcpwire.dev/deep': nested(1000) } } },
    ]);
  },
});

const unknownFields = robust({
  id: 'robustness.unknown-fields',
  title: 'unknown fields in params are ignored: ping and tools/list still succeed',
  clause: 'jsonrpc-2.0 §5',
  level: 'SHOULD',
  async run(ctx) {
    const has = await declares(ctx);
    const p = await freshProbe(ctx);
    const inputs: Array<[string, Record<string, unknown>]> = [['ping', { 'mcpwire-unknown': { x: [1, 2] } }], ...(has('tools') ? [['tools/list', { 'mcpwire-unknown': true }] as [string, Record<string, unknown>]] : [])];
    for (const [method, params] of inputs) {
      const input = `${method} with an unknown field ${JSON.stringify(params)}`;
      const o = await p.request(method, params, { timeoutMs: Math.min(ctx.timeoutMs, 10_000) });
      record(ctx, input, o);
      if (o.kind === 'timeout' || o.kind === 'closed') return violated(`${input} got ${describeOutcome(o)}`, input, { level: 'MUST' });
      if (o.kind === 'error') return violated(`${input} SHOULD succeed (the field is not part of the method's parameters and is ignored); it got ${describeOutcome(o)}`, o.message?.message);
    }
    return pass('unknown fields ignored');
  },
});

const unknownMethods = robust({
  id: 'robustness.unknown-methods',
  title: 'a run of unknown methods each gets -32601; the server survives them',
  clause: 'jsonrpc-2.0 §5.1',
  level: 'SHOULD',
  run: (ctx) =>
    battery(
      ctx,
      ['mcpwire/nope', 'tools/explode', 'resources/../../etc', '', ' ', 'rpc.discover', 'initialize/again', 'x'.repeat(2000)].map((m) => ({
        input: `the unknown method ${JSON.stringify(excerpt(m, 40))}`,
        method: m,
        params: {},
        codes: [-32601],
      })),
    ),
});

const afterCancel = robust({
  id: 'robustness.after-cancel',
  title: 'requests sent after cancelling one are still answered',
  clause: 'basic.utilities.cancellation#6',
  level: 'MUST',
  async run(ctx) {
    const has = await declares(ctx);
    const list = (['tools', 'resources', 'prompts'] as const).find(has);
    if (list === undefined) return notApplicable('the server declares none of tools, resources, prompts: no request to cancel');
    const p = await freshProbe(ctx);
    const bound = Math.min(ctx.timeoutMs, 10_000);
    for (let i = 0; i < 5; i++) {
      const ac = new AbortController();
      const pending = p.request(`${list}/list`, undefined, { signal: ac.signal, timeoutMs: bound });
      ac.abort(new Error('mcpwire check --robustness: cancelled'));
      await pending;
    }
    const after = await p.request('ping', undefined, { timeoutMs: bound });
    if (after.kind === 'result') return pass('5 requests cancelled, then a ping answered');
    return violated(`after 5 requests were each cancelled (notifications/cancelled) a ping got ${describeOutcome(after)}`, `${list}/list + notifications/cancelled ×5, then ping`);
  },
});

const pingFlood = robust({
  id: 'robustness.ping-flood',
  title: `a flood of ${FLOOD} pings sent at once is answered in full`,
  clause: 'basic.utilities.ping#1',
  level: 'MUST',
  async run(ctx) {
    const p = await freshProbe(ctx);
    const bound = Math.max(ctx.timeoutMs, 15_000);
    const outs = await Promise.all(Array.from({ length: FLOOD }, () => p.request('ping', undefined, { timeoutMs: bound })));
    const missing = outs.filter((o) => o.kind !== 'result');
    if (missing.length === 0) return pass(`${FLOOD} pings answered`);
    return violated(`${missing.length} of ${FLOOD} pings sent at once got no prompt response (first: ${describeOutcome(missing[0])})`, `${FLOOD} × ping`);
  },
});

const rawStdio = (id: string, title: string, level: 'MUST' | 'SHOULD', fn: Parameters<typeof withRawStdio>[1]) =>
  robust({ id, title, clause: 'jsonrpc-2.0 §5', level, transport: 'stdio', run: (ctx) => withRawStdio(ctx, fn, { fresh: true }) });

const invalidUtf8 = rawStdio('robustness.invalid-utf8', 'a line of invalid UTF-8 does not crash the server (stdio)', 'MUST', async (s) => {
  s.writeBytes(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"rb-utf8","method":"ping","params":{"_meta":{"x":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}}}')]));
  s.write(JSON.stringify({ jsonrpc: '2.0', id: 'rb-after-utf8', method: 'ping' }));
  const after = await s.waitFor((m) => isObject(m) && m.id === 'rb-after-utf8', 10_000);
  if (after !== undefined) return pass('the next ping was answered');
  return violated(`after a line with invalid UTF-8 (bytes c3 28 ff inside a string) the server ${s.exited() ? 'exited' : 'stopped answering'}`, 'ping with bytes c3 28 ff in _meta');
});

const duplicateIds = rawStdio('robustness.duplicate-ids', 'two requests in flight with the same id do not crash the server (stdio)', 'MUST', async (s) => {
  for (let i = 0; i < 2; i++) s.write(JSON.stringify({ jsonrpc: '2.0', id: 'rb-dup', method: 'ping' }));
  s.write(JSON.stringify({ jsonrpc: '2.0', id: 'rb-after-dup', method: 'ping' }));
  const after = await s.waitFor((m) => isObject(m) && m.id === 'rb-after-dup', 10_000);
  if (after !== undefined) return pass('the next ping was answered');
  return violated(`after two pings with the same id "rb-dup" the server ${s.exited() ? 'exited' : 'stopped answering'}`, '{"id":"rb-dup","method":"ping"} ×2');
});

/** A stack frame ("at fn (file.js:1:2)") or an absolute filesystem path in an error. */
const STACK = /\n?\s+at (?:[\w$.<>[\] ]+ )?\(?(?:file:\/\/|\/|[A-Za-z]:\\|node:)[^\s()]*:\d+:\d+\)?/;
const PATH = /(?:^|[\s"'(=:])(\/(?:home|Users|usr|opt|var|tmp|srv|app|root|work|workspace|private)\/[\w.@-]+(?:\/[\w.@-]+)+|[A-Za-z]:\\(?:[\w.@-]+\\)+[\w.@-]*)/;

const errorLeaks = robust({
  id: 'robustness.error-leaks',
  title: 'error messages the battery drew carry no stack trace or filesystem path',
  clause: 'basic/security_best_practices',
  level: 'SHOULD',
  async run(ctx) {
    const list = drawn.get(ctx) ?? [];
    if (list.length === 0) return notApplicable('the battery drew no error messages (run with the other robustness checks)');
    for (const e of list) {
      const m = STACK.exec(e.text) ?? PATH.exec(e.text);
      if (m !== null) return violated(`the error for ${e.input} leaks ${STACK.test(e.text) ? 'a stack trace' : 'a filesystem path'} (${JSON.stringify(excerpt(m[0].trim(), 80))})`, excerpt(e.text, 300));
    }
    return pass(`${list.length} error messages, none with a stack trace or a path`);
  },
});

export const robustnessChecks: CheckDef[] = [wrongTypes, huge, deep, unknownFields, unknownMethods, afterCancel, pingFlood, invalidUtf8, duplicateIds, errorLeaks];
