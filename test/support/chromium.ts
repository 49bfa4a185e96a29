/**
 * Finds a Chromium for browser tests, so `npm ci && npm test` passes on a fresh machine with
 * nothing installed by hand.
 *
 * `MCPWIRE_CHROMIUM` chooses:
 * - unset or `auto`: a system Chromium on PATH (`chromium`, `chromium-browser`,
 *   `google-chrome-stable`, `google-chrome`) when there is one, else the npm one;
 * - `system`: a system Chromium on PATH, or an error;
 * - `npm`: the Chromium shipped inside the `@sparticuz/chromium` devDependency (a brotli-packed
 *   headless shell), unpacked once into `node_modules/.cache/mcpwire-chromium-<version>/`;
 * - anything else: the path of a Chromium executable.
 *
 * Unpacking goes to a private temporary directory that is renamed into place, so parallel test
 * processes never run a half-written binary.
 */
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type ChromiumSource = 'env' | 'system' | 'npm';
export interface ResolvedChromium {
  executablePath: string;
  source: ChromiumSource;
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SYSTEM_NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];
const NPM_PACKAGE = '@sparticuz/chromium';

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first system Chromium on `PATH`, or undefined. */
export function findSystemChromium(path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    for (const name of SYSTEM_NAMES) {
      const file = join(dir, name);
      if (isExecutable(file)) return file;
    }
  }
  return undefined;
}

function packageJsonOf(entry: string): string {
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === NPM_PACKAGE) return file;
  }
  throw new Error(`no package.json of ${NPM_PACKAGE} above ${entry}`);
}

interface SparticuzChromium {
  executablePath(input?: string): Promise<string>;
}

/** Unpacks (once) and returns the Chromium of the `@sparticuz/chromium` devDependency. */
export async function npmChromium(): Promise<string> {
  const require = createRequire(join(ROOT, 'package.json'));
  let pkgJson: string;
  try {
    pkgJson = packageJsonOf(require.resolve(NPM_PACKAGE)); // its exports map hides package.json
  } catch (err) {
    throw new Error(`${NPM_PACKAGE} is not installed (a devDependency: run npm ci): ${(err as Error).message}`);
  }
  const version = (JSON.parse(readFileSync(pkgJson, 'utf8')) as { version: string }).version;
  const cache = join(ROOT, 'node_modules', '.cache');
  const target = join(cache, `mcpwire-chromium-${version}`);
  const binary = join(target, 'chromium');
  if (isExecutable(binary)) return binary;

  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(join(cache, `mcpwire-chromium-${version}.tmp-`));
  // The package unpacks into os.tmpdir(), which Node reads from TMPDIR at each call.
  const savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = staging;
  try {
    const mod = (await import(NPM_PACKAGE)) as { default: SparticuzChromium };
    const unpacked = await mod.default.executablePath(join(dirname(pkgJson), 'bin'));
    if (unpacked !== join(staging, 'chromium')) throw new Error(`${NPM_PACKAGE} unpacked to ${unpacked}, expected ${staging}`);
  } finally {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
  }
  try {
    renameSync(staging, target);
  } catch (err) {
    // Another process won the race: use its copy.
    rmSync(staging, { recursive: true, force: true });
    if (!isExecutable(binary)) throw err;
  }
  return binary;
}

/** Resolves the Chromium to launch, honouring `MCPWIRE_CHROMIUM` (see the file comment). */
export async function resolveChromium(choice = process.env.MCPWIRE_CHROMIUM ?? 'auto', path = process.env.PATH ?? ''): Promise<ResolvedChromium> {
  if (choice === 'npm') return { executablePath: await npmChromium(), source: 'npm' };
  if (choice === 'system' || choice === 'auto' || choice === '') {
    const system = findSystemChromium(path);
    if (system) return { executablePath: system, source: 'system' };
    if (choice === 'system') throw new Error(`MCPWIRE_CHROMIUM=system but none of ${SYSTEM_NAMES.join(', ')} is on PATH`);
    return { executablePath: await npmChromium(), source: 'npm' };
  }
  if (!existsSync(choice) || !isExecutable(choice)) throw new Error(`MCPWIRE_CHROMIUM=${choice}: not an executable file`);
  return { executablePath: choice, source: 'env' };
}

/**
 * The flags every browser test starts Chromium with: headless, no sandbox (CI runs as root), and
 * none of the background connections this machine's closed network refuses.
 */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** A persistent browser context as playwright-core gives it, typed by the page shape a test uses. */
export interface HeadlessContext<P> {
  newPage(): Promise<P>;
  close(): Promise<void>;
}

/**
 * Launches headless Chromium (the one `resolveChromium` finds, or `executablePath`) with a
 * profile in `profileDir`, through playwright-core. Structural types only, so the tests
 * type-check whether or not playwright-core is installed.
 */
export async function launchHeadless<P>(profileDir: string, executablePath?: string): Promise<HeadlessContext<P>> {
  const exe = executablePath ?? (await resolveChromium()).executablePath;
  let chromium: { launchPersistentContext(dir: string, o: object): Promise<HeadlessContext<P>> };
  try {
    const mod = 'playwright-core';
    chromium = ((await import(mod)) as { chromium: typeof chromium }).chromium;
  } catch (err) {
    throw new Error(`playwright-core is not installed (devDependency): ${(err as Error).message}`);
  }
  return chromium.launchPersistentContext(profileDir, { executablePath: exe, headless: true, args: CHROMIUM_ARGS });
}
