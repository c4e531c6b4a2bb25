import { describe, expect, it } from 'vitest';
import { CALLER_TEXT_MAX, neutraliseCallerText, quoteCallerText } from './caller-text.js';

/** What a mail client would turn into a link or a recipient. */
const LINKABLE = /[a-z][a-z0-9+.-]*:(?=\S)|\bwww\.|[\p{L}\p{N}-]\.[\p{L}\p{N}-]{2}|@|\d+\.\d+\.\d+\.\d+/iu;

describe('neutraliseCallerText', () => {
  it.each([
    ['a phishing line with a URL', 'Konto gesperrt: https://evil.example/k', 'Konto gesperrt: evil[.]example/k'],
    ['an HTML link', '<a href="https://evil.example">hier</a>', "a href 'evil[.]example' hier /a"],
    ['an encoded word', '=?utf-8?q?Konto_gesperrt?=', '?utf-8?q?Konto_gesperrt?'],
    ['a mailto link', 'mailto:support@evil.example', 'support [at] evil[.]example'],
    ['a bare address', 'Antwort an chef@firma.de', 'Antwort an chef [at] firma[.]de'],
    ['a www. form', 'www.evil.example/login', 'www[.]evil[.]example/login'],
    ['a javascript: URL', 'javascript:alert(1)', 'alert(1)'],
    ['a scheme hidden in a scheme', 'hthttps://tps://evil.example', 'evil[.]example'],
    ['full-width and ideographic dots', 'evil．example。com', 'evil[.]example[.]com'],
    ['an IP address', 'http://192.168.0.1/x', '192[.]168[.]0[.]1/x'],
  ])('neutralises %s', (_case, input, expected) => {
    const text = neutraliseCallerText(input);

    expect(text).toBe(expected);
    expect(text).not.toMatch(LINKABLE);
  });

  it('turns CR, LF and other control characters into single spaces', () => {
    expect(neutraliseCallerText('TSV\r\nBcc: x\u0007\u001b[31m rot\u0000')).toBe('TSV Bcc: x [31m rot');
  });

  it('drops right-to-left overrides and zero-width characters', () => {
    const text = neutraliseCallerText('Rechnung\u202egnp.exe\u200b\u2066x\u2069');

    expect(text).toBe('Rechnung gnp[.]exe x');
    expect(text).not.toMatch(/[\u200b-\u200f\u202a-\u202e\u2066-\u2069]/u);
  });

  it('keeps umlauts, ß, other scripts, digits and ordinary punctuation', () => {
    expect(neutraliseCallerText('Bäckerei Müller & Söhne GmbH – Straße 1890 e.V.')).toBe('Bäckerei Müller & Söhne GmbH – Straße 1890 e.V.');
    expect(neutraliseCallerText('Κλαμπ Ωμέγα, Łódź!')).toBe('Κλαμπ Ωμέγα, Łódź!');
  });

  it('replaces quotation marks, so the text cannot end our quotes', () => {
    expect(quoteCallerText('A“ – Bitte zahlen Sie jetzt „B')).toBe("„A' – Bitte zahlen Sie jetzt 'B“");
  });

  it('drops symbols that build markup or look like commands', () => {
    expect(neutraliseCallerText('<b>50 € + $ = ^^ ♥</b>')).toBe('b 50 /b');
  });

  it(`cuts long text to ${CALLER_TEXT_MAX} characters with an ellipsis`, () => {
    const text = neutraliseCallerText('x'.repeat(200));

    expect(text).toHaveLength(CALLER_TEXT_MAX);
    expect(text.endsWith('…')).toBe(true);
  });

  it('quotes the result, and gives a dash for text with nothing left', () => {
    expect(quoteCallerText('TSV Fanshop')).toBe('„TSV Fanshop“');
    expect(quoteCallerText('\u202e\r\n<>')).toBe('–');
  });
});
