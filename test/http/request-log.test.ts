/**
 * The debug request log: one line per request, with no secret of the URL in it. The requests read
 * nothing the engine keeps: the embedded project only (vitest.config.ts).
 */
import { describe, expect, it } from 'vitest';
import { call, withApp } from '../helpers/app.ts';

describe('the request log at debug', () => {
  it('logs the path and the query parameter names, never a secret of the URL', async () => {
    const lines: string[] = [];
    await withApp({ env: { LOG_LEVEL: 'debug' }, logLines: lines }, async (t) => {
      await call(t.app, 'GET', '/invitations/INVITESECRET123');
      await call(t.app, 'GET', '/reset-password/RESETSECRET456');
      await call(t.app, 'GET', '/api/v1/me?token=QUERYSECRET789&token=again&account_id=ACCOUNTX');
      await call(t.app, 'GET', '//Invitations/INVITESECRET123');
      const requests = lines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'request');
      expect(requests.map((line) => line.url)).toEqual([
        '/invitations/********',
        '/reset-password/********',
        '/api/v1/me?token&account_id',
        '//Invitations/********',
      ]);
      const all = lines.join('\n');
      for (const secret of ['INVITESECRET123', 'RESETSECRET456', 'QUERYSECRET789', 'ACCOUNTX']) expect(all).not.toContain(secret);
    });
  });
});
