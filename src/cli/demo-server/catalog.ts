/**
 * What the demo server offers: its tools (each with a handler), one resource and one prompt.
 * Plain data and small functions, no protocol: server.ts answers the requests with them.
 */

export interface ToolContext {
  signal: AbortSignal;
  /** Sends notifications/progress when the request carried a progress token. */
  progress(progress: number, total: number, message: string): void;
}

export interface CallResult {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface DemoTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  run(args: Record<string, unknown>, ctx: ToolContext): CallResult | Promise<CallResult>;
}

const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, ...(required.length ? { required } : {}) });
const text = (t: string, isError = false): CallResult => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError } : {}) });
const count = (v: unknown, dflt: number, max: number) => (typeof v === 'number' && Number.isFinite(v) ? Math.min(Math.max(0, Math.floor(v)), max) : dflt);

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export const TOOLS: DemoTool[] = [
  {
    name: 'echo',
    title: 'Echo',
    description: 'Echoes the given text back',
    inputSchema: object({ text: { type: 'string' } }, ['text']),
    annotations: { readOnlyHint: true },
    run: (args) => text(typeof args.text === 'string' ? args.text : ''),
  },
  {
    name: 'add',
    title: 'Add',
    description: 'Adds two numbers',
    inputSchema: object({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']),
    annotations: { readOnlyHint: true },
    run: (args) => (typeof args.a === 'number' && typeof args.b === 'number' ? text(String(args.a + args.b)) : text('a and b must be numbers', true)),
  },
  {
    name: 'progress',
    title: 'Progress',
    description: 'Sends `steps` progress notifications `intervalMs` apart, then answers',
    inputSchema: object({ steps: { type: 'number' }, intervalMs: { type: 'number' } }),
    annotations: { readOnlyHint: true },
    run: async (args, ctx) => {
      const steps = count(args.steps, 3, 100);
      const interval = count(args.intervalMs, 20, 10_000);
      for (let i = 1; i <= steps; i++) {
        await sleep(interval, ctx.signal);
        ctx.progress(i, steps, `step ${i} of ${steps}`);
      }
      return text(`done ${steps} steps`);
    },
  },
  {
    name: 'structured',
    title: 'Structured',
    description: 'Returns structuredContent (and its text serialization) matching outputSchema',
    inputSchema: object({ text: { type: 'string' } }),
    outputSchema: object({ text: { type: 'string' }, length: { type: 'integer' }, upper: { type: 'string' } }, ['text', 'length', 'upper']),
    annotations: { readOnlyHint: true },
    run: (args) => {
      const t = typeof args.text === 'string' ? args.text : 'hello';
      const structuredContent = { text: t, length: t.length, upper: t.toUpperCase() };
      return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
    },
  },
  {
    name: 'weather',
    title: 'Weather (canned)',
    description: 'Returns canned weather for a city',
    inputSchema: object({ city: { type: 'string' } }, ['city']),
    annotations: { readOnlyHint: true },
    run: () => text('Sunny, 22 °C'),
  },
];

export const RESOURCES = [{ uri: 'mem://demo/readme', name: 'readme', mimeType: 'text/plain', text: 'This is the mcpwire demo server.' }];

export const PROMPTS = [
  {
    name: 'summarize',
    description: 'Summarize a text',
    arguments: [{ name: 'text', required: true }],
    render: (args: Record<string, string>) => [{ role: 'user', content: { type: 'text', text: `Summarize: ${args.text ?? ''}` } }],
  },
];
