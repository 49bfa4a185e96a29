/**
 * The CLI's error scrubber knows every configured secret before anything is sent: the OAuth
 * client secret, and the enterprise IdP's client secret (`oauth.enterprise.client_secret`).
 */
import { describe, expect, it } from 'vitest';
import { secretsOf } from '../../src/cli/config-target.js';

describe('secretsOf', () => {
  it('includes the OAuth client secret and the enterprise IdP client secret', () => {
    const server = {
      id: 'corp',
      config: {
        id: 'corp',
        transport: 'http',
        url: 'https://mcp.example.test/mcp',
        oauth: {
          clientSecret: 'as-client-secret-1',
          enterprise: { idpTokenUrl: 'https://idp.example.test/token', clientId: 'mcp-client', clientSecret: 'idp-client-secret-2', idTokenEnv: 'ID_TOKEN' },
        },
      },
    };
    const out = secretsOf([server as never]);
    expect(out).toContain('as-client-secret-1');
    expect(out).toContain('idp-client-secret-2');
  });
});
