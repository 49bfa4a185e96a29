/**
 * A small strict XML 1.0 well-formedness parser for tests (no dependency): prolog, elements,
 * attributes (quoted, unique), character data with the five predefined entities and character
 * references, comments, CDATA; one root; every tag closed in order. Throws on anything else.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_:][A-Za-z0-9_:.-]*/;

function decode(s: string, at: number): string {
  return s.replace(/&([^;]*);|&/g, (m, ref: string | undefined) => {
    if (ref === undefined) throw new Error(`bare "&" at ${at}`);
    if (ref === 'amp') return '&';
    if (ref === 'lt') return '<';
    if (ref === 'gt') return '>';
    if (ref === 'quot') return '"';
    if (ref === 'apos') return "'";
    const n = /^#x([0-9A-Fa-f]+)$/.exec(ref) ?? /^#([0-9]+)$/.exec(ref);
    if (n) return String.fromCodePoint(parseInt(n[1], ref.startsWith('#x') ? 16 : 10));
    throw new Error(`unknown entity ${m} at ${at}`);
  });
}

export function parseXml(src: string): XmlElement {
  let i = 0;
  // eslint-disable-next-line no-control-regex
  const bad = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.exec(src);
  if (bad) throw new Error(`control character U+${bad[0].charCodeAt(0).toString(16)} at ${bad.index}`);
  const ws = () => {
    while (i < src.length && /\s/.test(src[i])) i++;
  };
  if (src.startsWith('<?xml')) {
    const end = src.indexOf('?>');
    if (end < 0) throw new Error('unterminated XML declaration');
    if (!/^<\?xml\s+version="1\.[0-9]"(\s+encoding="[A-Za-z0-9._-]+")?(\s+standalone="(yes|no)")?\s*$/.test(src.slice(0, end))) throw new Error('malformed XML declaration');
    i = end + 2;
  }
  const misc = () => {
    for (;;) {
      ws();
      if (src.startsWith('<!--', i)) {
        const end = src.indexOf('-->', i + 4);
        if (end < 0) throw new Error('unterminated comment');
        i = end + 3;
      } else return;
    }
  };
  misc();
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (i < src.length) {
    if (stack.length === 0 && root !== undefined) {
      misc();
      if (i < src.length) throw new Error(`content after the root element at ${i}`);
      break;
    }
    if (src.startsWith('<!--', i)) {
      const end = src.indexOf('-->', i + 4);
      if (end < 0 || src.slice(i + 4, end).includes('--')) throw new Error(`bad comment at ${i}`);
      i = end + 3;
    } else if (src.startsWith('<![CDATA[', i)) {
      if (stack.length === 0) throw new Error(`CDATA outside the root at ${i}`);
      const end = src.indexOf(']]>', i);
      if (end < 0) throw new Error('unterminated CDATA');
      stack[stack.length - 1].text += src.slice(i + 9, end);
      i = end + 3;
    } else if (src.startsWith('</', i)) {
      i += 2;
      const m = NAME.exec(src.slice(i));
      if (!m) throw new Error(`bad end tag at ${i}`);
      i += m[0].length;
      ws();
      if (src[i] !== '>') throw new Error(`bad end tag at ${i}`);
      i++;
      const open = stack.pop();
      if (open?.name !== m[0]) throw new Error(`</${m[0]}> closes <${open?.name ?? 'nothing'}>`);
    } else if (src[i] === '<') {
      i++;
      const m = NAME.exec(src.slice(i));
      if (!m) throw new Error(`bad tag at ${i}`);
      i += m[0].length;
      const el: XmlElement = { name: m[0], attrs: {}, children: [], text: '' };
      for (;;) {
        const before = i;
        ws();
        if (src.startsWith('/>', i) || src[i] === '>') break;
        if (i === before) throw new Error(`attributes must be separated by white space at ${i}`);
        const a = NAME.exec(src.slice(i));
        if (!a) throw new Error(`bad attribute at ${i}`);
        i += a[0].length;
        ws();
        if (src[i] !== '=') throw new Error(`attribute without "=" at ${i}`);
        i++;
        ws();
        const q = src[i];
        if (q !== '"' && q !== "'") throw new Error(`unquoted attribute value at ${i}`);
        const end = src.indexOf(q, i + 1);
        if (end < 0) throw new Error('unterminated attribute value');
        const raw = src.slice(i + 1, end);
        if (raw.includes('<')) throw new Error(`"<" in an attribute value at ${i}`);
        if (a[0] in el.attrs) throw new Error(`duplicate attribute ${a[0]}`);
        el.attrs[a[0]] = decode(raw, i);
        i = end + 1;
      }
      if (stack.length > 0) stack[stack.length - 1].children.push(el);
      else if (root === undefined) root = el;
      else throw new Error('two root elements');
      if (src.startsWith('/>', i)) i += 2;
      else {
        i++;
        stack.push(el);
      }
    } else {
      const next = src.indexOf('<', i);
      const end = next < 0 ? src.length : next;
      const text = src.slice(i, end);
      if (stack.length === 0) {
        if (text.trim() !== '') throw new Error(`text outside the root at ${i}`);
      } else {
        if (text.includes(']]>')) throw new Error(`"]]>" in text at ${i}`);
        stack[stack.length - 1].text += decode(text, i);
      }
      i = end;
    }
  }
  if (stack.length > 0) throw new Error(`<${stack[stack.length - 1].name}> is never closed`);
  if (root === undefined) throw new Error('no root element');
  return root;
}

/** Every descendant element named `name`. */
export function findAll(el: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (e: XmlElement) => {
    for (const c of e.children) {
      if (c.name === name) out.push(c);
      walk(c);
    }
  };
  walk(el);
  return out;
}
