/**
 * Duplicate-key scanner for JSON text. `JSON.parse` silently keeps the last of two equal keys;
 * a config file that defines the same server id twice is ambiguous, so the loader scans the
 * raw text for duplicates. The scanner is iterative (no recursion limit) and compares keys
 * after decoding escapes, so `"a"` and `"\u0061"` are the same key.
 *
 * It expects text that `JSON.parse` has already accepted; on other input it returns whatever
 * it found so far and never throws.
 */

/** A key that occurs more than once in one object. */
export interface DuplicateKey {
  /** Path of the object holding the key (object keys and array indexes as strings). */
  path: string[];
  key: string;
  /** How many times the key occurs in that object (at least 2). */
  count: number;
}

// Frames link to their parent instead of copying paths: deep nesting stays linear in memory.
type Frame = { parent: Frame | undefined; at: string } & (
  | { kind: 'object'; seen: Map<string, number>; key: string; expectKey: boolean }
  | { kind: 'array'; index: number }
);

const WS = new Set([' ', '\t', '\n', '\r']);

/** Returns every duplicated key in `text`, in the order their objects close. */
export function findDuplicateKeys(text: string): DuplicateKey[] {
  const out: DuplicateKey[] = [];
  const stack: Frame[] = [];
  const link = (): { parent: Frame | undefined; at: string } => {
    const top = stack[stack.length - 1];
    return { parent: top, at: top === undefined ? '' : top.kind === 'object' ? top.key : String(top.index) };
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (WS.has(c) || c === ':') {
      i++;
    } else if (c === '{') {
      stack.push({ kind: 'object', ...link(), seen: new Map(), key: '', expectKey: true });
      i++;
    } else if (c === '[') {
      stack.push({ kind: 'array', ...link(), index: 0 });
      i++;
    } else if (c === '}' || c === ']') {
      const frame = stack.pop();
      if (frame?.kind === 'object') collect(frame, out);
      i++;
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.kind === 'object') top.expectKey = true;
      else if (top?.kind === 'array') top.index++;
      i++;
    } else if (c === '"') {
      const end = stringEnd(text, i);
      const top = stack[stack.length - 1];
      if (top?.kind === 'object' && top.expectKey) {
        top.key = decodeKey(text.slice(i, end));
        top.seen.set(top.key, (top.seen.get(top.key) ?? 0) + 1);
        top.expectKey = false;
      }
      i = end;
    } else {
      i = scalarEnd(text, i);
    }
  }
  return out;
}

function collect(frame: Extract<Frame, { kind: 'object' }>, out: DuplicateKey[]): void {
  for (const [key, count] of frame.seen) {
    if (count > 1) out.push({ path: pathOf(frame), key, count });
  }
}

function pathOf(frame: Frame): string[] {
  const path: string[] = [];
  for (let f: Frame | undefined = frame; f?.parent !== undefined; f = f.parent) path.push(f.at);
  return path.reverse();
}

/** Index just past the closing quote of the string starting at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else i++;
  }
  return text.length;
}

function scalarEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && !WS.has(text[i]) && !',:]}[{"'.includes(text[i])) i++;
  return i;
}

function decodeKey(raw: string): string {
  try {
    return JSON.parse(raw) as string;
  } catch {
    return raw.slice(1, -1);
  }
}
