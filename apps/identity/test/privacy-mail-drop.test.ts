// Erasure drops the consent-code e-mails to the erased address that still
// wait on the `mail` queue (sealed, so each is opened to compare), and no other.
import { TEST_INTERNAL_SECRET } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsentMailDrop } from '../src/privacy/consent-mail-drop.js';
import { startIdentity, type IdentityHarness } from './identity-app.js';
import { createConsentMailer } from '../src/oauth/queue/consent-mailer.js';
import { testLogger } from '@msa/test-kit';

let h: IdentityHarness;
beforeAll(async () => {
  h = await startIdentity('identity-privacy-mail');
});
afterAll(async () => {
  await h?.close();
});

describe('createConsentMailDrop', () => {
  it('removes the waiting codes to any spelling of the mailbox and leaves everyone else\'s', async () => {
    const mailer = createConsentMailer({ connection: h.redis.redis, prefix: h.mailQueue.opts.prefix!, internalAuthSecret: TEST_INTERNAL_SECRET, logger: testLogger('identity') });
    const mail = (to: string) => ({ to, code: '123456', lang: 'de' as const, clientName: 'Host', clientNameSelfDeclared: true, approvalTarget: { kind: 'host' as const, value: 'host.example' }, trace: {} });
    await mailer.send(mail('Erika+shop@Example.org'));
    await mailer.send(mail('erika@example.org'));
    await mailer.send(mail('someone@example.org'));
    const drop = createConsentMailDrop(async () => h.mailQueue, TEST_INTERNAL_SECRET);

    const dropped = await drop('erika@example.org');

    expect(dropped).toBe(2);
    expect(await h.mailQueue.getWaitingCount()).toBe(1);
    expect(await h.lastConsentCode()).toMatchObject({ to: 'someone@example.org' });
    expect(await drop('erika@example.org')).toBe(0);
    await mailer.close();
  });

  it('lets the drop read the queue the mailer makes on first use, and a closed mailer neither sends nor makes one again', async () => {
    const mailer = createConsentMailer({ connection: h.redis.redis, prefix: h.mailQueue.opts.prefix!, internalAuthSecret: TEST_INTERNAL_SECRET, logger: testLogger('identity') });
    const mail = { to: 'late@example.org', code: '123456', lang: 'en' as const, clientName: 'Host', clientNameSelfDeclared: true, approvalTarget: { kind: 'host' as const, value: 'host.example' }, trace: {} };
    await mailer.send(mail);
    expect(await createConsentMailDrop(mailer.queue, TEST_INTERNAL_SECRET)('late@example.org')).toBe(1);
    await mailer.close();

    await expect(mailer.send(mail)).rejects.toThrow('the consent mailer is closed');
    await expect(mailer.queue()).rejects.toThrow('the consent mailer is closed');
    expect(await h.mailQueue.getWaitingCount()).toBe(1);
  });
});
