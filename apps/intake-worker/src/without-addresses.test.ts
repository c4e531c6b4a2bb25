import { UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { scrubAddresses, withoutAddresses } from './without-addresses.js';

/** What nodemailer rejects with when the server refuses the recipient. */
function buildSmtpRejection(address: string): Error {
  return Object.assign(new Error(`Can't send mail - all recipients were rejected: 550 5.1.1 <${address}>: Recipient address rejected`), {
    code: 'EENVELOPE',
    responseCode: 550,
    command: 'RCPT TO',
    response: `550 5.1.1 <${address}>: Recipient address rejected`,
    rejected: [address],
    envelope: { from: 'anfragen@shop.example', to: [address] },
  });
}

describe('withoutAddresses', () => {
  it('removes the recipient an SMTP rejection quotes from its message and stack, keeping the SMTP codes', () => {
    const safe = withoutAddresses(buildSmtpRejection('erika.mustermann@example.org'));

    expect(safe.message).toBe("Can't send mail - all recipients were rejected: 550 5.1.1 <[address]>: Recipient address rejected");
    expect(safe.stack).not.toContain('erika');
    expect(safe.stack).toContain('without-addresses.test.ts');
    expect(safe).toMatchObject({ code: 'EENVELOPE', responseCode: 550, command: 'RCPT TO' });
    expect(JSON.stringify(Object.entries(safe))).not.toContain('example.org');
  });

  it('removes the credentials of a URL and leaves its host', () => {
    const safe = withoutAddresses(new Error('fetch https://erika:geheim@logos.example/wappen.png failed'));

    expect(safe.message).toBe('fetch https://[credentials]@logos.example/wappen.png failed');
  });

  it('keeps the name BullMQ reads, so an unrecoverable error stays unrecoverable', () => {
    const safe = withoutAddresses(new UnrecoverableError('invalid payload from eve@evil.example'));

    expect(safe.name).toBe('UnrecoverableError');
    expect(safe.message).toBe('invalid payload from [address]');
  });

  it('takes what is not an error', () => {
    expect(withoutAddresses('refused eva@tsv.example').message).toBe('refused [address]');
    expect(withoutAddresses(undefined).message).toBe('undefined');
  });

  it('applies the caller\'s own scrubbing too', () => {
    expect(withoutAddresses(new Error('code 120034 for x'), (t) => t.replace('120034', '[code]')).message).toBe('code [code] for x');
  });
});

describe('scrubAddresses', () => {
  it('replaces addresses in angle brackets, quotes and plain text', () => {
    expect(scrubAddresses('to <a@b.example>, "c.d+tag@e.example" and f@g')).toBe('to <[address]>, "[address]" and [address]');
  });

  it('leaves text without addresses as it is', () => {
    expect(scrubAddresses('451 4.3.0 mailbox busy, try later')).toBe('451 4.3.0 mailbox busy, try later');
  });
});
