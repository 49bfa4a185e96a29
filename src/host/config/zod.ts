/**
 * zod, required on first use: loading it (and building a schema) costs ~0.1 s of CPU, which a
 * process that validates no config and no host-tool arguments (`mcpwire --stdio … tools`,
 * `import('mcpwire/host')`) never pays. The schemas of this package are built inside `lazy`
 * builders; their types come from `import type`.
 */
import { createRequire } from 'node:module';
import type { z as Z } from 'zod';

const require = createRequire(import.meta.url);
let loaded: typeof Z | undefined;

/** zod's `z` (its CommonJS build: one copy for every user in this package). */
export function zod(): typeof Z {
  return (loaded ??= (require('zod') as { z: typeof Z }).z);
}

/** A value built with zod on its first use, then kept. */
export function lazy<T>(build: (z: typeof Z) => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: build(zod()) }).v;
}

/**
 * An object that is the value `build` returns, built when first touched (a property read, `in`,
 * `instanceof`, its keys): for a public export that must stay a schema object.
 */
export function lazyObject<T extends object>(get: () => T): T {
  return new Proxy({} as T, {
    get: (_t, key) => {
      const real = get();
      const v = Reflect.get(real, key, real) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(real) : v;
    },
    has: (_t, key) => Reflect.has(get(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(get()),
    ownKeys: () => Reflect.ownKeys(get()),
    getOwnPropertyDescriptor: (_t, key) => {
      const d = Reflect.getOwnPropertyDescriptor(get(), key);
      return d === undefined ? undefined : { ...d, configurable: true };
    },
  });
}
