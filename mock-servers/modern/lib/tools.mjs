// The modern mock's built-in tools. A tool is { def, run(args, rc) }; `rc` is the request
// context the engine gives it: signal (cancellation), progress(), log() (request-scoped, only
// when the request asked for a logLevel), emit() (subscriptions), headers, and `input` for
// multi round-trip requests (basic/patterns/mrtr.md).

import { RpcError, sleep } from '../../lib/rpc.mjs';

const obj = (properties, required) => ({ type: 'object', properties, ...(required ? { required } : {}) });
const text = (t) => ({ content: [{ type: 'text', text: String(t) }] });
const num = (v, d) => (v === undefined || v === null || !Number.isFinite(Number(v)) ? d : Number(v));

/**
 * An MRTR tool: the first attempt answers input_required with one input request `key`; a retry
 * that carries a response for `key` (and a verified requestState) completes. A retry without the
 * response asks again, at most `maxRounds` times in all.
 */
function mrtrTool(description, key, capability, request, finish) {
  return {
    def: { description, inputSchema: obj({ message: { type: 'string' } }) },
    capability,
    run(args, rc) {
      const answer = rc.input.responses?.[key];
      if (answer !== undefined && rc.input.state) return finish(answer, rc.input.state);
      const round = (rc.input.state?.round ?? 0) + 1;
      if (round > rc.input.maxRounds) return { ...text(`gave up after ${rc.input.maxRounds} rounds without ${key}`), isError: true };
      return rc.input.require({ [key]: request(args) }, { round, key });
    },
  };
}

export const MODERN_TOOLS = {
  echo: {
    def: { description: 'Echoes text', inputSchema: obj({ text: { type: 'string' } }, ['text']) },
    run: (a) => text(a.text ?? ''),
  },
  add: {
    def: { description: 'Adds two numbers', inputSchema: obj({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']) },
    run: (a) => (typeof a.a === 'number' && typeof a.b === 'number' ? text(a.a + a.b) : { ...text('a and b must be numbers'), isError: true }),
  },
  // Parameters mirrored into Mcp-Param-* headers (basic/transports/streamable-http.md, x-mcp-header).
  route: {
    def: {
      description: 'Answers the values it got and the Mcp-Param-* headers that carried them',
      inputSchema: obj(
        {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          tenant: { type: 'object', properties: { id: { type: 'integer', 'x-mcp-header': 'Tenant' } } },
          dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
          query: { type: 'string' },
        },
        ['query'],
      ),
    },
    run: (a, rc) => text(JSON.stringify({ arguments: a, headers: rc.paramHeaders ?? null })),
  },
  progress: {
    def: { description: 'Reports progress steps with the request progressToken, and logs each step', inputSchema: obj({ steps: { type: 'integer' }, intervalMs: { type: 'integer' } }) },
    async run(a, rc) {
      const steps = num(a.steps, 3);
      for (let i = 1; i <= steps; i++) {
        await sleep(num(a.intervalMs, 10), rc.signal);
        rc.progress(i, steps, `step ${i} of ${steps}`);
        rc.log('info', `step ${i}`);
      }
      return text(`done ${steps} steps`);
    },
  },
  log: {
    def: { description: 'Sends one notifications/message at `level` (only if the request carried a logLevel)', inputSchema: obj({ level: { type: 'string' }, data: {} }) },
    run: (a, rc) => text(rc.log(a.level ?? 'info', a.data ?? 'hello') ? 'logged' : 'filtered'),
  },
  slow: {
    def: { description: 'Answers after ms; cancellable', inputSchema: obj({ ms: { type: 'integer' } }) },
    async run(a, rc) {
      await sleep(num(a.ms, 1000), rc.signal);
      return text(`slept ${num(a.ms, 1000)} ms`);
    },
  },
  notify: {
    def: {
      description: 'Fires a change on the subscriptions: kind tools|prompts|resources (list_changed) or updated (with uri)',
      inputSchema: obj({ kind: { type: 'string' }, uri: { type: 'string' } }, ['kind']),
    },
    run: (a, rc) => text(`delivered to ${rc.emit(a.kind, a.uri)} subscription(s)`),
  },
  confirm: mrtrTool(
    'Asks the user to confirm through an MRTR elicitation',
    'confirm',
    'elicitation',
    (a) => ({
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: a.message ?? 'Proceed?',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      },
    }),
    (ans, st) => text(`${ans.action ?? 'unknown'}: ${JSON.stringify(ans.content ?? null)} after ${st.round} round(s)`),
  ),
  sample: mrtrTool(
    'Asks the client LLM through an MRTR sampling request',
    'sample',
    'sampling',
    (a) => ({
      method: 'sampling/createMessage',
      params: { messages: [{ role: 'user', content: { type: 'text', text: a.message ?? 'Say hi' } }], maxTokens: 50 },
    }),
    (ans) => text(`model said: ${ans.content?.text ?? JSON.stringify(ans.content ?? null)}`),
  ),
  roots: mrtrTool(
    'Asks the client for its roots through an MRTR roots/list request',
    'roots',
    'roots',
    () => ({ method: 'roots/list', params: {} }),
    (ans) => text(`roots: ${(ans.roots ?? []).map((r) => r.uri).join(', ')}`),
  ),
};

/** Elicits a boolean confirmation under `key` (an MRTR input request). */
const confirmRequest = (message) => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] } },
});

/**
 * The fixtures the official conformance suite's tasks scenarios (conformance 0.2.0-alpha.12,
 * SEP-2663) call by name; bundled in scenarios/tasks-conformance.json, each marked as a task tool.
 */
export const TASK_FIXTURE_TOOLS = {
  greet: {
    def: { description: 'Greets (sync only)', inputSchema: obj({ name: { type: 'string' } }, ['name']) },
    run: (a) => text(`Hello, ${a.name ?? 'World'}!`),
  },
  slow_compute: {
    def: { description: 'Sleeps `seconds`, then answers', inputSchema: obj({ seconds: { type: 'number' }, label: { type: 'string' } }) },
    async run(a, rc) {
      await sleep(num(a.seconds, 1) * 1000, rc.signal);
      return text(`computed ${a.label ?? ''} after ${num(a.seconds, 1)} s`);
    },
  },
  failing_job: {
    def: { description: 'A tool execution error after about a second', inputSchema: obj({}) },
    async run(_a, rc) {
      await sleep(1000, rc.signal);
      return { ...text('the job failed'), isError: true };
    },
  },
  protocol_error_job: {
    def: { description: 'Fails with a JSON-RPC error (internal error)', inputSchema: obj({}) },
    run: () => {
      throw new RpcError(-32603, 'the job crashed');
    },
  },
  confirm_delete: {
    def: { description: 'Asks to confirm deleting `filename`, then answers', inputSchema: obj({ filename: { type: 'string' } }, ['filename']) },
    run(a, rc) {
      const answer = rc.input.responses?.confirm;
      if (answer !== undefined) return text(`${answer.action === 'accept' && answer.content?.confirm !== false ? 'deleted' : 'kept'} ${a.filename}`);
      return rc.input.require({ confirm: confirmRequest(`Delete ${a.filename}?`) }, {});
    },
  },
  // MRTR on tools/call, then the answer as a task (scenario `task: "after-input"`)
  test_tool_with_task: mrtrTool(
    'Asks the user for a name (MRTR), then greets them from a task',
    'user_name',
    'elicitation',
    () => ({
      method: 'elicitation/create',
      params: { mode: 'form', message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    }),
    (ans) => text(`Hello, ${ans.content?.name ?? 'nobody'}!`),
  ),
  multi_input: {
    def: { description: 'Asks two confirmations at once, then answers', inputSchema: obj({}) },
    run(_a, rc) {
      const r = rc.input.responses;
      if (r?.first !== undefined && r?.second !== undefined) return text(`first: ${r.first.action}, second: ${r.second.action}`);
      return rc.input.require({ first: confirmRequest('First?'), second: confirmRequest('Second?') }, {});
    },
  },
};

/** Normalizes scenario.tools (names of built-ins, or entries) into name → { def, run?, result?, error?, task, behavior, capability? }. */
export function buildModernTools(list) {
  const out = new Map();
  for (const entry of list) {
    const t = typeof entry === 'string' ? { name: entry } : entry;
    const known = { ...MODERN_TOOLS, ...TASK_FIXTURE_TOOLS };
    const builtinName = t.builtin ?? (known[t.name] && t.result === undefined && t.error === undefined ? t.name : undefined);
    const builtin = builtinName === undefined ? undefined : known[builtinName];
    if (builtinName !== undefined && !builtin) throw new Error(`scenario: unknown modern builtin tool "${builtinName}"`);
    const { builtin: _b, result, error, behavior, task, ...shown } = t;
    const def = { ...(builtin?.def ?? { inputSchema: { type: 'object' } }), ...shown };
    // `task: true` (= "required"), "optional" or "after-input": runs as a task of the tasks extension (tasks.mjs) when the scenario has `tasks`
    out.set(t.name, { def, run: builtin?.run, capability: builtin?.capability, result, error, task: task === true ? 'required' : task || undefined, behavior: behavior ?? {} });
  }
  return out;
}
