// The built-in tools any scenario can serve by listing their name in `tools` (a string, or an
// object with that `name`, or any name plus `"builtin": "<name>"`). Each entry is the tool's
// definition (as tools/list shows it) plus `run(ctx)`, which returns a CallToolResult.
//
// ctx: { args, signal, progressToken, progress(progress, total, message), notify(method, params),
//        request(method, params) → Promise<{result}|{error}>, log(level, data, logger) → bool,
//        crash(code, stderrText), resourceUpdated(uri) → bool, sleep(ms), forever() }

import { existsSync, writeFileSync } from 'node:fs';

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
  job: {
    description: 'A job of `ms` milliseconds; every `progressEveryMs` (0: never) a progress notification with the request\'s token',
    inputSchema: obj({ ms: { type: 'number' }, progressEveryMs: { type: 'number' } }),
    run: async ({ args, progress, sleep }) => {
      const ms = num(args.ms, 1000);
      const every = num(args.progressEveryMs, 0);
      if (every <= 0) await sleep(ms);
      else for (let t = every; t <= ms; t += every) {
        await sleep(every);
        progress(t, ms, `${t} of ${ms} ms`);
      }
      return text(`job done after ${ms} ms`);
    },
  },
  concurrent: {
    description: 'Sleeps `ms` while counted as in flight (see `inflight`); answers the count it saw',
    inputSchema: obj({ ms: { type: 'number' } }),
    annotations: { readOnlyHint: true },
    run: async ({ args, state, sleep }) => {
      const c = (state.concurrency ??= { inFlight: 0, maxInFlight: 0, calls: 0 });
      c.inFlight++;
      c.calls++;
      c.maxInFlight = Math.max(c.maxInFlight, c.inFlight);
      try {
        await sleep(num(args.ms, 50));
      } finally {
        c.inFlight--;
      }
      return text(`done (max in flight so far ${c.maxInFlight})`);
    },
  },
  inflight: {
    description: 'Answers {inFlight, maxInFlight, calls} of the `concurrent` tool as JSON text',
    inputSchema: obj({}),
    run: ({ state }) => text(JSON.stringify(state.concurrency ?? { inFlight: 0, maxInFlight: 0, calls: 0 })),
  },
  crashOnce: {
    description: 'The first call ever (no file at `marker`) creates `marker` and exits the server after `ms`, taking every call in flight down with it; later calls (a new process) answer after `ms`',
    inputSchema: obj({ marker: { type: 'string' }, ms: { type: 'number' }, id: {} }, ['marker']),
    annotations: { idempotentHint: true },
    run: async ({ args, state, crash, sleep, forever }) => {
      const marker = String(args.marker);
      if (state.crashing) return forever();
      if (!existsSync(marker)) {
        writeFileSync(marker, String(process.pid));
        state.crashing = true;
        await sleep(num(args.ms, 100));
        crash(1, 'crashOnce: exiting on purpose\n');
        return forever();
      }
      await sleep(num(args.ms, 100));
      return text(`ok ${args.id ?? ''} from pid ${process.pid}`.trim());
    },
  },
  events: {
    description: 'Sends `count` notifications `method` (default notifications/tool_event) and a log message each, `intervalMs` apart, then answers; `withToken` puts the request\'s progressToken in each notification\'s _meta',
    inputSchema: obj({ count: { type: 'number' }, intervalMs: { type: 'number' }, method: { type: 'string' }, withToken: { type: 'boolean' }, tag: { type: 'string' } }),
    run: async ({ args, progressToken, notify, log, sleep }) => {
      const count = num(args.count, 2);
      const method = String(args.method ?? 'notifications/tool_event');
      for (let i = 1; i <= count; i++) {
        await sleep(num(args.intervalMs, 10));
        const meta = args.withToken === true && progressToken !== undefined ? { _meta: { progressToken } } : {};
        notify(method, { tag: args.tag ?? null, seq: i, ...meta });
        log('info', { tag: args.tag ?? null, seq: i }, 'events');
      }
      return text(`sent ${count} ${method}`);
    },
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
  if (b.annotations) def.annotations = b.annotations;
  return { ...def, ...overrides };
}
