/**
 * zod's translations of its error messages load when a program asks for one, not when a config
 * is first checked (src/host/config/zod.ts): zod's CommonJS entry requires all of them and uses
 * English alone. Run in a fresh process (what is in the module cache is the point), through the
 * built `mcpwire/host` (npm run build).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url)))), '..');
const hostApi = path.join(ROOT, 'dist', 'host-api.js');

const PROGRAM = `
import { createRequire } from 'node:module';
const { serverEntrySchema } = await import(${JSON.stringify(pathToFileURL(hostApi).href)});
const checked = serverEntrySchema.safeParse({ transport: 'stdio', command: 7 });
const require = createRequire(${JSON.stringify(hostApi)});
const locales = () => Object.keys(require.cache).filter((f) => /[\\\\/]zod[\\\\/]v4[\\\\/]locales[\\\\/]/.test(f)).map((f) => f.replace(/.*[\\\\/]/, '')).filter((f) => f !== 'index.cjs'); // the translations (index.cjs lists them)
const before = locales();
const { z } = require('zod');
const message = checked.error.issues[0].message;
const keys = Object.keys(z.locales);
z.config(z.locales.fr());
const french = z.string().safeParse(3).error.issues[0].message;
z.config(z.locales.en());
console.log(JSON.stringify({ ok: checked.success, before, message, hasFr: keys.includes('fr'), after: locales().length, french, english: z.string().safeParse(3).error.issues[0].message }));
`;

describe.skipIf(!fs.existsSync(hostApi))('zod loads its English messages only; the other translations on first use', () => {
  it('a config checked loads only the English translation; z.locales still lists and gives every translation', () => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', PROGRAM], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as { ok: boolean; before: string[]; message: string; hasFr: boolean; after: number; french: string; english: string };
    expect(out.ok).toBe(false);
    expect(out.before).toEqual(['en.cjs']);
    expect(out.message).toMatch(/^Invalid input: expected string, received number/);
    expect(out.hasFr).toBe(true);
    expect(out.after).toBeGreaterThan(10);
    expect(out.french).toMatch(/^Entrée invalide/);
    expect(out.english).toBe('Invalid input: expected string, received number');
  });
});
