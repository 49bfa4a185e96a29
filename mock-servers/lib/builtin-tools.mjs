// The built-in tools any scenario can serve by listing their name in `tools` (a string, or an
// object with that `name`, or any name plus `"builtin": "<name>"`). Each entry is the tool's
// definition (as tools/list shows it) plus `run(ctx)`, which returns a CallToolResult.
//
// ctx: { args, signal, progressToken, progress(progress, total, message), notify(method, params),
//        request(method, params) → Promise<{result}|{error}>, log(level, data, logger) → bool,
//        crash(code, stderrText), resourceUpdated(uri) → bool, sleep(ms), forever() }

const obj = (properties, required) => ({ type: 'object', properties, ...(required ? { required } : {}) });
const text = (t) => ({ content: [{ type: 'text', text: String(t) }] });
const num = (v, dflt) => (v === undefined || v === null || v === '' || !Number.isFinite(Number(v)) ? dflt : Number(v));

export const BUILTIN_TOOLS = {
  echo: {
    description: 'Echoes the given text back',
    inputSchema: obj({ text: { type: 'string' } }, ['text']),
    run: ({ args }) => text(args.text ?? ''),
  },
  add: {
    description: 'Adds two numbers',
    inputSchema: obj({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']),
    run: ({ args }) => {
      if (typeof args.a !== 'number' || typeof args.b !== 'number') {
        return { content: [{ type: 'text', text: 'a and b must be numbers' }], isError: true };
      }
      return text(args.a + args.b);
    },
  },
  slow: {
    description: 'Answers after `ms` milliseconds (cancellable)',
    inputSchema: obj({ ms: { type: 'number' } }),
    run: async ({ args, sleep }) => {
      const ms = num(args.ms, 1000);
      await sleep(ms);
      return text(`slept ${ms} ms`);
    },
  },
  progress: {
    description: 'Sends `steps` progress notifications `intervalMs` apart, then answers',
    inputSchema: obj({ steps: { type: 'number' }, intervalMs: { type: 'number' } }),
    run: async ({ args, progress, sleep }) => {
      const steps = num(args.steps, 3);
      const interval = num(args.intervalMs, 20);
      for (let i = 1; i <= steps; i++) {
        await sleep(interval);
        progress(i, steps, `step ${i} of ${steps}`);
      }
      return text(`done ${steps} steps`);
    },
  },
  structured: {
    description: 'Returns structuredContent (and its text serialization) matching outputSchema',
    inputSchema: obj({ text: { type: 'string' } }),
    outputSchema: obj(
      { text: { type: 'string' }, length: { type: 'integer' }, upper: { type: 'string' } },
      ['text', 'length', 'upper'],
    ),
    run: ({ args }) => {
      const t = String(args.text ?? 'hello');
      const structuredContent = { text: t, length: t.length, upper: t.toUpperCase() };
      return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
    },
  },
  fail: {
    description: 'Always fails with a tool execution error (isError: true)',
    inputSchema: obj({ message: { type: 'string' } }),
    run: ({ args }) => ({ content: [{ type: 'text', text: String(args.message ?? 'this tool always fails') }], isError: true }),
  },
  blob: {
    description: 'Returns a text content of exactly `bytes` bytes',
    inputSchema: obj({ bytes: { type: 'number' } }, ['bytes']),
    run: ({ args }) => text('x'.repeat(Math.max(0, Math.floor(num(args.bytes, 1024))))),
  },
  log: {
    description: 'Emits notifications/message (if at/above the level set by logging/setLevel)',
    inputSchema: obj({ level: { type: 'string' }, data: {}, logger: { type: 'string' } }),
    run: ({ args, log }) => {
      const sent = log(args.level ?? 'info', args.data ?? 'log message', args.logger);
      return text(sent ? 'logged' : 'filtered');
    },
  },
  notify: {
    description: 'Emits any notification, e.g. notifications/tools/list_changed',
    inputSchema: obj({ method: { type: 'string' }, params: { type: 'object' } }, ['method']),
    run: ({ args, notify }) => {
      notify(String(args.method), args.params);
      return text(`sent ${args.method}`);
    },
  },
  update: {
    description: 'Sends notifications/resources/updated for `uri` if the client subscribed to it',
    inputSchema: obj({ uri: { type: 'string' } }, ['uri']),
    run: ({ args, resourceUpdated }) => text(resourceUpdated(String(args.uri)) ? 'sent' : 'not subscribed'),
  },
  ask: {
    description: 'Sends a request to the client (roots/list, sampling/createMessage, elicitation/create, ping, …) and returns its answer as JSON text',
    inputSchema: obj({ method: { type: 'string' }, params: { type: 'object' } }, ['method']),
    run: async ({ args, request }) => {
      const answer = await request(String(args.method), args.params);
      if (answer.error !== undefined) {
        return { content: [{ type: 'text', text: JSON.stringify({ error: answer.error }) }], isError: true };
      }
      return text(JSON.stringify(answer.result));
    },
  },
  roots: {
    description: 'Answers {listChanged, roots}: how many notifications/roots/list_changed arrived and the last roots/list answer (asked again on each one when behavior.refetchRoots)',
    inputSchema: obj({}),
    run: ({ state }) => text(JSON.stringify({ listChanged: state.rootsListChanged, roots: state.roots ?? null })),
  },
  crash: {
    description: 'Writes `stderr` then exits the server with `code` mid-call',
    inputSchema: obj({ code: { type: 'number' }, stderr: { type: 'string' } }),
    run: ({ args, crash, forever }) => {
      crash(num(args.code, 1), args.stderr ?? 'mock server crashed on purpose\n');
      return forever();
    },
  },
  never: {
    description: 'Never answers (until cancelled)',
    inputSchema: obj({}),
    run: ({ forever }) => forever(),
  },
  ignoreCancel: {
    description: 'Answers after `ms` even if the request was cancelled',
    inputSchema: obj({ ms: { type: 'number' } }),
    ignoreCancel: true,
    run: async ({ args, sleep }) => {
      const ms = num(args.ms, 200);
      await sleep(ms);
      return text(`answered after ${ms} ms despite cancellation`);
    },
  },
};

/** The tools/list entry for built-in `builtin`, merged with the scenario's overrides (name, …). */
export function builtinDefinition(builtin, overrides = {}) {
  const b = BUILTIN_TOOLS[builtin];
  const def = { name: builtin, description: b.description, inputSchema: b.inputSchema };
  if (b.outputSchema) def.outputSchema = b.outputSchema;
  return { ...def, ...overrides };
}
