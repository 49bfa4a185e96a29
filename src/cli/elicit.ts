/**
 * The CLI's answer to `elicitation/create` (client/elicitation): on a terminal it asks the user,
 * field by field, then shows the answers for review before sending; anywhere else (a pipe, CI)
 * it declines, so a script never hangs on a question nobody can see.
 *
 * Everything a server sends is untrusted text: control characters are stripped before printing.
 * A URL is shown in full with its host, never fetched or opened: the user opens it themselves
 * after saying yes (client.elicitation#42–#45).
 */
import { startAnswering } from './attention.js';
import {
  fieldProblem,
  type ElicitRequestParams,
  type ElicitResult,
  type HandlerContext,
} from '../index.js';

export interface PromptStreams {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
}

type Field = Record<string, unknown>;

/** Strips terminal control sequences and characters from untrusted text. */
function clean(text: unknown): string {
  // eslint-disable-next-line no-control-regex
  return String(text).replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

/** Lines from the input, one at a time; null once it ends (node:readline loads here: a question is rare, every command that connects would load it). */
async function lineReader(input: NodeJS.ReadableStream, signal: AbortSignal) {
  const readline = await import('node:readline');
  const rl = readline.createInterface({ input, terminal: false });
  const queue: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  let closed = false;
  const close = () => {
    closed = true;
    for (const w of waiting.splice(0)) w(null);
  };
  rl.on('line', (line) => (waiting.length > 0 ? waiting.shift()!(line) : queue.push(line)));
  rl.on('close', close);
  const onAbort = () => rl.close();
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) rl.close();
  return {
    next: (): Promise<string | null> =>
      queue.length > 0 ? Promise.resolve(queue.shift()!) : closed ? Promise.resolve(null) : new Promise((r) => waiting.push(r)),
    close: () => {
      signal.removeEventListener('abort', onAbort);
      rl.close();
    },
  };
}

/** One option of an enum field: the value sent, and the title shown (the value itself when untitled). */
interface Choice {
  value: unknown;
  label: string;
}

/**
 * The options of a single- or multi-select field, with their titles: titled `oneOf`/`anyOf`
 * (`const` + `title`), a plain `enum` with the legacy `enumNames`, and the same under `items`.
 */
function choices(f: Field): Choice[] | undefined {
  const src = f.type === 'array' ? (f.items as Field | undefined) : f;
  if (src === undefined || src === null || typeof src !== 'object') return undefined;
  if (Array.isArray(src.enum)) {
    const names = Array.isArray(src.enumNames) ? src.enumNames : [];
    return src.enum.map((v: unknown, i) => ({ value: v, label: typeof names[i] === 'string' ? names[i] : String(v) }));
  }
  const consts = src.oneOf ?? src.anyOf;
  if (!Array.isArray(consts)) return undefined;
  return consts
    .filter((c): c is Field => c !== null && typeof c === 'object' && 'const' in c)
    .map((c) => ({ value: c.const, label: typeof c.title === 'string' ? c.title : String(c.const) }));
}

/** The typed value of what the user typed for field `f` (numbers, yes/no, lists, choice numbers or titles). */
export function parseAnswer(f: Field, text: string): unknown {
  const t = text.trim();
  const c = choices(f);
  const pick = (s: string): unknown => {
    if (c === undefined) return s;
    const n = Number(s);
    if (Number.isInteger(n) && n >= 1 && n <= c.length) return c[n - 1]!.value;
    // a title typed out sends its value; a value typed out is kept
    return c.find((x) => x.value === s)?.value ?? c.find((x) => x.label.toLowerCase() === s.toLowerCase())?.value ?? s;
  };
  switch (f.type) {
    case 'number':
    case 'integer':
      return t === '' ? NaN : Number(t);
    case 'boolean':
      return /^(y|yes|true)$/i.test(t) ? true : /^(n|no|false)$/i.test(t) ? false : t;
    case 'array':
      return t === '' ? [] : t.split(',').map((s) => pick(s.trim()));
    default:
      return pick(t);
  }
}

/** A value as the user sees it: the title of the option it is, else its JSON. */
function shown(value: unknown, c: Choice[] | undefined): string {
  const label = (v: unknown) => c?.find((x) => x.value === v)?.label;
  if (Array.isArray(value) && c !== undefined && value.every((v) => label(v) !== undefined)) return value.map(label).join(', ');
  return label(value) ?? JSON.stringify(value);
}

function describeField(name: string, f: Field, required: boolean): string {
  const label = clean(f.title ?? name);
  const c = choices(f);
  const parts = [`${label}${required ? ' *' : ''}`];
  if (f.description !== undefined) parts.push(`(${clean(f.description)})`);
  if (c !== undefined) parts.push(`\n    choose ${f.type === 'array' ? 'one or more, comma-separated' : 'one'}: ${c.map((x, i) => `${i + 1}) ${clean(x.label)}`).join('  ')}`);
  else if (f.type === 'boolean') parts.push('[y/n]');
  // client.elicitation#10: defaults pre-populate the field (Enter keeps them).
  if (f.default !== undefined) parts.push(`[default: ${clean(shown(f.default, c))}]`);
  return `  ${parts.join(' ')}: `;
}

type Reader = Awaited<ReturnType<typeof lineReader>>;
const DECLINE: ElicitResult = { action: 'decline' };
const CANCEL: ElicitResult = { action: 'cancel' };

async function askForm(p: ElicitRequestParams, rd: Reader, out: NodeJS.WritableStream): Promise<ElicitResult> {
  const schema = (p.requestedSchema ?? {}) as { properties?: Record<string, Field>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const content: Record<string, unknown> = {};
  out.write('  (Enter keeps the default or skips an optional field; type :decline or :cancel to stop)\n');
  for (const [name, f] of Object.entries(schema.properties ?? {})) {
    for (;;) {
      out.write(describeField(name, f, required.has(name)));
      const line = await rd.next();
      if (line === null || line.trim() === ':cancel') return CANCEL;
      if (line.trim() === ':decline') return DECLINE;
      if (line.trim() === '') {
        if (f.default !== undefined) content[name] = f.default;
        else if (required.has(name)) {
          out.write('    this field is required\n');
          continue;
        }
        break;
      }
      const value = parseAnswer(f, line);
      const problem = fieldProblem(f, value);
      if (problem === undefined) {
        content[name] = value;
        break;
      }
      out.write(`    ${problem}\n`);
    }
  }
  // client.elicitation#3: the user reviews the answers before they are sent. Enter sends (the
  // default is shown); closing the input still cancels.
  out.write(`  send ${clean(JSON.stringify(content))}? [y]es / [n]o, decline / [c]ancel (Enter: yes): `);
  const answer = (await rd.next())?.trim().toLowerCase();
  if (answer === undefined) return CANCEL;
  if (answer === '' || answer === 'y' || answer === 'yes') return { action: 'accept', content };
  return answer === 'n' || answer === 'no' ? DECLINE : CANCEL;
}

async function askUrl(p: ElicitRequestParams, rd: Reader, out: NodeJS.WritableStream): Promise<ElicitResult> {
  const url = new URL(String(p.url));
  // client.elicitation#44/#46/#47: the full URL, its host apart, a warning for punycode.
  out.write(`  URL:  ${clean(p.url)}\n  host: ${clean(url.hostname)}\n`);
  if (url.hostname.split('.').some((l) => l.startsWith('xn--'))) out.write('  warning: the host name uses punycode (it may imitate another name)\n');
  out.write('  open this URL in your browser? [y/N] ');
  const answer = (await rd.next())?.trim().toLowerCase();
  if (answer === undefined) return CANCEL;
  if (answer !== 'y' && answer !== 'yes') return DECLINE;
  // client.elicitation#43/#45: consent given; the user's own browser opens it, not mcpwire.
  out.write(`  open it in your browser: ${clean(p.url)}\n`);
  return { action: 'accept' };
}

/**
 * An `onElicitation` handler for the CLI: interactive on a TTY (`input.isTTY`), declining
 * otherwise. Prompts go to `output` (stderr by default), never to stdout.
 */
export function cliElicitation(streams: PromptStreams = { input: process.stdin, output: process.stderr }) {
  return async (p: ElicitRequestParams, ctx: HandlerContext): Promise<ElicitResult> => {
    const out = streams.output;
    // client.elicitation#32: say which server asks.
    const who = `server "${clean(ctx.serverId ?? 'unknown')}"`;
    if (streams.input.isTTY !== true) {
      out.write(`mcpwire: declined an elicitation from ${who} (stdin is not a terminal)\n`);
      return DECLINE;
    }
    out.write(`\n${who} asks (${p.mode === 'url' ? 'URL' : 'form'}): ${clean(p.message)}\n`);
    const rd = await lineReader(streams.input, ctx.signal);
    // The call this question belongs to waits for the person, however long they take.
    const done = startAnswering();
    try {
      return p.mode === 'url' ? await askUrl(p, rd, out) : await askForm(p, rd, out);
    } finally {
      done();
      rd.close();
    }
  };
}
