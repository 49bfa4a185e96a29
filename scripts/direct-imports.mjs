/**
 * Imports through a door, rewritten to the module that defines the name (scripts/postbuild.mjs).
 *
 * Why: the bundler splits the code by which entries reach each module, and a module reached
 * through a re-export counts as reached even where the name it exports goes unused.
 * `import { decidePermission } from '../host-api.js'` made every module `src/host/index.ts`
 * re-exports (the supervisor, its calls and OAuth side: 190 KB) reached by `mcpwire call`, so its
 * chunk was the host's. Rewritten as `import { decidePermission } from '../host/permissions.js'`,
 * an entry reaches what it uses. The same binding either way (an ES module is one instance); our
 * modules do nothing at load but define, so skipping the door's other modules changes no
 * behaviour.
 *
 * Only what reads the same after: named imports and `export { … } from` (a namespace, a default
 * or a name the door defines itself stays as it is). Each rewritten statement keeps its line
 * count, so tsc's source map still holds for every other line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseAst } from 'rolldown/parseAst';

/** The name an import or export specifier carries (`a` in `{ a as b }`; a string name as its value). */
function nameOf(node) {
  return node.type === 'Literal' ? node.value : node.name;
}

/** Where `spec` from `file` leads, when it is one of ours (relative, within `root`). */
function target(file, spec, root) {
  if (!spec.startsWith('.')) return undefined;
  const to = path.resolve(path.dirname(file), spec);
  return to.startsWith(root + path.sep) && fs.existsSync(to) ? to : undefined;
}

/** A reader of the modules under `root` (tsc's output): what each exports and where each name is defined. */
export function directImports(root) {
  const shapes = new Map();
  const bodies = new Map();

  /** A module's top-level statements (parsed once: for its own imports and for what it exports). */
  function body(file) {
    let b = bodies.get(file);
    if (!b) bodies.set(file, (b = parseAst(fs.readFileSync(file, 'utf8')).body));
    return b;
  }

  /** A module's exports: its own names, its `export { x as y } from` links and its `export *` sources. */
  function shape(file) {
    let s = shapes.get(file);
    if (s) return s;
    s = { own: new Set(), links: new Map(), stars: [] };
    shapes.set(file, s);
    for (const node of body(file)) {
      if (node.type === 'ExportAllDeclaration') {
        const to = node.source && target(file, node.source.value, root);
        if (node.exported) s.own.add(nameOf(node.exported));
        else if (to) s.stars.push(to);
        else s.stars.push(null); // a package's names: unknown, so a name not found elsewhere stays
      } else if (node.type === 'ExportDefaultDeclaration') {
        s.own.add('default');
      } else if (node.type === 'ExportNamedDeclaration') {
        const to = node.source && target(file, node.source.value, root);
        for (const sp of node.specifiers ?? []) {
          const exported = nameOf(sp.exported);
          if (node.source && to) s.links.set(exported, { file: to, name: nameOf(sp.local) });
          else s.own.add(exported);
        }
        const decl = node.declaration;
        if (decl?.id) s.own.add(decl.id.name);
        for (const d of decl?.declarations ?? []) {
          if (d.id.type === 'Identifier') s.own.add(d.id.name);
          else return undefinedShape(file); // a destructured export: not followed
        }
      }
    }
    return s;
  }

  function undefinedShape(file) {
    const s = { own: new Set(), links: new Map(), stars: [], opaque: true };
    shapes.set(file, s);
    return s;
  }

  /** The module that defines `name` exported by `file`, and the name there; undefined when not sure. */
  function origin(file, name, seen = new Set()) {
    const key = `${file}\0${name}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    const s = shape(file);
    if (s.opaque) return undefined;
    if (s.own.has(name)) return { file, name };
    const link = s.links.get(name);
    if (link) return origin(link.file, link.name, seen);
    const found = [];
    for (const star of s.stars) {
      if (star === null) return undefined;
      if (name === 'default') continue;
      const o = origin(star, name, seen);
      if (o) found.push(o);
    }
    return found.length === 1 ? found[0] : undefined;
  }

  /** `code` (the text of `file`, or the same with its end cut) with its imports and re-exports of our modules pointed at the modules that define the names. */
  function rewrite(file, code) {
    let out = '';
    let at = 0;
    for (const node of body(file)) {
      const isImport = node.type === 'ImportDeclaration';
      const isReexport = node.type === 'ExportNamedDeclaration' && node.source;
      if (!isImport && !isReexport) continue;
      if (isImport && node.importKind === 'type') continue;
      const from = target(file, node.source.value, root);
      const specs = node.specifiers ?? [];
      if (!from || specs.length === 0 || specs.some((sp) => sp.type !== (isImport ? 'ImportSpecifier' : 'ExportSpecifier'))) continue;
      const groups = new Map();
      for (const sp of specs) {
        const asked = isImport ? nameOf(sp.imported) : nameOf(sp.local);
        const as = isImport ? sp.local.name : nameOf(sp.exported);
        const o = origin(from, asked) ?? { file: from, name: asked };
        const list = groups.get(o.file) ?? [];
        list.push(o.name === as ? as : `${o.name} as ${as}`);
        groups.set(o.file, list);
      }
      if (groups.size === 1 && groups.has(from)) continue;
      const text = code.slice(node.start, node.end);
      const statements = [...groups].map(([to, names]) => {
        let spec = path.relative(path.dirname(file), to).split(path.sep).join('/');
        if (!spec.startsWith('.')) spec = `./${spec}`;
        return `${isImport ? 'import' : 'export'} { ${names.join(', ')} } from '${spec}';`;
      });
      out += code.slice(at, node.start) + statements.join(' ') + '\n'.repeat(text.split('\n').length - 1);
      at = node.end;
    }
    return out + code.slice(at);
  }

  /**
   * The modules `entry` reaches once its imports name the defining modules: each imported name
   * leads to its origin (a door's other re-exports are not followed, nor is a lazy `import()`).
   */
  function reach(entry) {
    const seen = new Set();
    const visit = (file) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const node of body(file)) {
        const isImport = node.type === 'ImportDeclaration';
        if (!isImport && !(node.type === 'ExportAllDeclaration' || (node.type === 'ExportNamedDeclaration' && node.source))) continue;
        const from = node.source && target(file, node.source.value, root);
        if (!from) continue;
        const specs = node.specifiers ?? [];
        const named = specs.length > 0 && specs.every((sp) => sp.type === 'ImportSpecifier' || sp.type === 'ExportSpecifier');
        if (!named) {
          visit(from);
          continue;
        }
        for (const sp of specs) {
          const asked = isImport ? nameOf(sp.imported) : nameOf(sp.local);
          visit((origin(from, asked) ?? { file: from }).file);
        }
      }
    };
    visit(entry);
    return seen;
  }

  return { origin, rewrite, reach };
}
