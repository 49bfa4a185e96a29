/**
 * DPoP (RFC 9449) end to end against a REAL authorization server with DPoP (oidc-provider,
 * `features.dPoP`) and an MCP resource server that checks every proof itself
 * (test/support/dpop-verify.ts: signature with the header's `jwk`, `htm`, `htu`, `iat`, `jti`
 * replay cache, `ath`, nonce) and that the proof key is the token's `cnf.jkt` (introspection).
 *
 * The built CLI (`npm run build` first) logs in (`--no-browser`, the test is the browser), calls
 * with a trace file on, shows the grant and its binding in `login`/`auth status`; the test then
 * presents the stored token itself: replayed proof, Bearer without proof, another key — each
 * refused for that reason, while a fresh proof of the right key is accepted. A token the server
 * rejects is refreshed and the new token is bound to the same key. Nothing secret (tokens,
 * proofs, the private key, the server's nonce) is in the trace or the CLI's output.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DpopSigner, newDpopJwk } from '../../src/auth/dpop.js';
import type { StoredGrant } from '../../src/auth/types.js';
import { runCliHere } from '../support/cli-in-process.js';
import { runCliAnswering } from '../support/cli-process.js';
import { startTestAs, type TestAs } from '../support/oidc-as.js';
import { startTestMcpServer, type TestMcpServer } from '../support/oidc-mcp-server.js';

const SCOPE = 'mcp:tools';
let as: TestAs;
let mcp: TestMcpServer;
let dir: string;
let env: Record<string, string>;
let authFile: string;
const traceFile = (): string => path.join(dir, 'trace.jsonl');
const outputs: string[] = [];
/** Every secret value met: tokens, refresh tokens, the key's private part, codes. */
const secrets = new Set<string>();

beforeAll(async () => {
  const m = await startTestMcpServer();
  as = await startTestAs({ resources: { [m.url]: SCOPE }, dpop: true });
  m.configure({ issuer: as.issuer, introspector: as.introspector, scope: SCOPE, dpop: { nonce: true } });
  mcp = m;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-dpop-e2e-'));
  const home = path.join(dir, 'home');
  fs.mkdirSync(path.join(dir, 'proj'), { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), MCPWIRE_CONFIG_PATH: path.join(dir, 'global', 'config.json'), MCPWIRE_TRACE: '', MCPWIRE_NO_BROWSER: '1' };
  authFile = path.join(home, '.config', 'mcpwire', 'mcp-auth.json');
});
afterAll(async () => {
  await as?.close();
  await mcp?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(args: string[], extraEnv: Record<string, string> = {}, onStderr?: (text: string, stdin: NodeJS.WritableStream) => void): Promise<Run> {
  const where = { cwd: path.join(dir, 'proj'), env: { ...process.env, ...env, ...extraEnv } };
  const r = onStderr ? await runCliAnswering(args, { ...where, timeoutMs: 90_000, onStderr }) : await runCliHere(args, where);
  outputs.push(r.stdout + r.stderr);
  return r;
}

function readGrant(): StoredGrant {
  const g = JSON.parse(fs.readFileSync(authFile, 'utf8')).servers.secure as StoredGrant;
  for (const v of [g.access_token, g.refresh_token, g.client_secret, g.dpop_jwk?.d]) if (typeof v === 'string') secrets.add(v);
  return g;
}

async function introspect(token: string): Promise<{ active: boolean; token_type?: string; cnf?: { jkt?: string } }> {
  const res = await fetch(`${as.issuer}/token/introspection`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${as.introspector.id}:${as.introspector.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }),
  });
  return (await res.json()) as { active: boolean };
}

/** One MCP request (ping) to the resource server with the given headers, as the test's own client. */
async function ping(headers: Record<string, string>): Promise<Response> {
  return fetch(mcp.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
}

/** A signer of `jwk` that already knows the resource server's nonce. */
async function signerWithNonce(jwk: Record<string, unknown>): Promise<DpopSigner> {
  const s = await DpopSigner.fromJwk(jwk);
  s.rememberNonce(mcp.url, mcp.dpopNonce!);
  return s;
}

describe('DPoP against oidc-provider with a resource server that verifies proofs (RFC 9449)', { timeout: 240_000 }, () => {
  let jkt = '';

  it('login binds the token to a stored key; login --json and auth status show the grant and the key thumbprint, never the key', async () => {
    const add = await run(['mcp', 'add', 'secure', '--scope', 'global', '--transport', 'http', '--url', mcp.url, '--oauth-scope', SCOPE]);
    expect(add.code, add.stderr).toBe(0);
    let pasted = false;
    const login = await run(['login', 'secure', '--no-browser', '--json'], { MCPWIRE_TRACE: traceFile() }, (text, stdin) => {
      const m = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(text);
      if (!m || pasted) return;
      pasted = true;
      void as.approve(m[1]).then((redirect) => {
        secrets.add(redirect.searchParams.get('code')!);
        stdin.write(`${redirect.href}\n`);
      });
    });
    expect(login.code, login.stderr).toBe(0);
    const g = readGrant();
    expect(g.token_type).toMatch(/^dpop$/i);
    expect(g.dpop_jwk).toMatchObject({ kty: 'EC', crv: 'P-256' });
    // The AS bound the token to our key: its cnf.jkt is the thumbprint the CLI shows.
    const at = await introspect(g.access_token);
    expect(at).toMatchObject({ active: true, token_type: 'DPoP' });
    jkt = at.cnf!.jkt!;
    expect(jkt).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const shown = JSON.parse(login.stdout) as Record<string, unknown>;
    expect(shown).toMatchObject({ id: 'secure', grant: 'authorization_code', sender_constrained: { method: 'dpop', jkt } });
    expect(shown.scopes).toContain(SCOPE);

    const st = await run(['auth', 'status', '--json']);
    expect(st.code, st.stderr).toBe(0);
    expect(JSON.parse(st.stdout).servers[0]).toMatchObject({ id: 'secure', state: 'valid', grant: 'authorization_code', sender_constrained: { method: 'dpop', jkt } });
    const text = await run(['auth', 'status']);
    expect(text.stdout).toMatch(/secure\s+valid\s+authorization_code\s+DPoP jkt=/);
    expect(text.stdout).toContain(jkt);
    for (const out of [login.stdout, st.stdout, text.stdout]) expect(out).not.toContain(String(g.dpop_jwk!.d));
  });

  it('a call (trace on) presents the token with the DPoP scheme and a valid proof; the server nonce is taken once (RFC 9449 §7.1, §9)', async () => {
    const log = mcp.dpopLog.length;
    const call = await run(['call', 'secure', 'whoami'], { MCPWIRE_TRACE: traceFile() });
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('subject=alice');
    const decisions = mcp.dpopLog.slice(log);
    // The first proof had no nonce: refused once with use_dpop_nonce, then every request passes.
    expect(decisions[0]).toBe('refused: nonce missing or stale');
    expect(decisions.slice(1).length).toBeGreaterThan(0);
    expect(decisions.slice(1).every((d) => d === `accepted ${jkt}`), decisions.join('\n')).toBe(true);
    expect(mcp.nonceChallenges).toBe(1);
  });

  it('the resource server refuses a replayed proof, the token as Bearer, and a proof of another key; a fresh proof of the key passes', async () => {
    const g = readGrant();
    const signer = await signerWithNonce(g.dpop_jwk!);
    const proof = await signer.proof('POST', mcp.url, g.access_token);
    secrets.add(proof);
    const fresh = await ping({ authorization: `DPoP ${g.access_token}`, dpop: proof });
    expect(fresh.status, await fresh.clone().text()).toBe(200);
    expect(mcp.dpopLog.at(-1)).toBe(`accepted ${jkt}`);

    const replayed = await ping({ authorization: `DPoP ${g.access_token}`, dpop: proof });
    expect(replayed.status).toBe(401);
    expect(mcp.dpopLog.at(-1)).toBe('refused: jti replayed');

    const bearer = await ping({ authorization: `Bearer ${g.access_token}` });
    expect(bearer.status).toBe(401);
    expect(mcp.dpopLog.at(-1)).toBe('refused: a DPoP-bound token sent as Bearer');

    const other = await signerWithNonce((await newDpopJwk()) as Record<string, unknown>);
    const foreign = await ping({ authorization: `DPoP ${g.access_token}`, dpop: await other.proof('POST', mcp.url, g.access_token) });
    expect(foreign.status).toBe(401);
    expect(mcp.dpopLog.at(-1)).toBe('refused: the proof key is not the one the token is bound to');
  });

  it('a token the server rejects (after the nonce replay) is refreshed with a proof of the same key: the new token is bound to the same jkt', async () => {
    const before = readGrant();
    const refreshes = as.counts.refreshes;
    mcp.expireTokens();
    const call = await run(['call', 'secure', 'whoami'], { MCPWIRE_TRACE: traceFile() });
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('subject=alice');
    expect(as.counts.refreshes - refreshes).toBe(1);
    const after = readGrant();
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.dpop_jwk).toEqual(before.dpop_jwk);
    expect((await introspect(after.access_token)).cnf?.jkt).toBe(jkt);
    expect(mcp.dpopLog.at(-1)).toBe(`accepted ${jkt}`);
    const st = await run(['auth', 'status', '--json']);
    expect(JSON.parse(st.stdout).servers[0]).toMatchObject({ grant: 'authorization_code', sender_constrained: { method: 'dpop', jkt } });
  });

  it('nothing secret in the trace file or the CLI output: tokens, refresh tokens, proofs, the private key, the nonce', () => {
    const trace = fs.readFileSync(traceFile(), 'utf8');
    // The trace is not empty: the calls were recorded.
    expect(trace).toContain('tools/call');
    const all = [...secrets, ...mcp.tokensSeen, ...mcp.proofsSeen, mcp.dpopNonce!].filter((s) => s && s.length >= 8);
    expect(all.length).toBeGreaterThan(6);
    for (const s of all) {
      expect(trace.includes(s), `a secret (${s.slice(0, 6)}…) is in the trace`).toBe(false);
      for (const out of outputs) expect(out.includes(s), `a secret (${s.slice(0, 6)}…) is in the CLI output`).toBe(false);
    }
  });
});
