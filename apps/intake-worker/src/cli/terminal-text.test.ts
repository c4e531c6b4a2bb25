import { describe, expect, it } from 'vitest';
import { terminalJson, terminalText } from './terminal-text.js';

const HOSTILE = 'TSV\u001b[2J\u001b]0;pwned\u0007\r\nFake line\u009b31m\u007f\u202eexe.txt\u2066x\u2069';

describe('terminalText', () => {
  it('shows escape sequences, CR/LF, BEL, DEL, C1 controls and bidi overrides as escapes', () => {
    expect(terminalText(HOSTILE)).toBe('TSV\\x1b[2J\\x1b]0;pwned\\x07\\r\\nFake line\\x9b31m\\x7f\\u202eexe.txt\\u2066x\\u2069');
  });

  it('leaves no character a terminal acts on', () => {
    // eslint-disable-next-line no-control-regex
    expect(terminalText(HOSTILE)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });

  it('keeps umlauts and ordinary text, and writes a backslash so an escape cannot be faked', () => {
    expect(terminalText('Bäckerei Krume – Straße 1')).toBe('Bäckerei Krume – Straße 1');
    expect(terminalText('a\\x1b')).toBe('a\\\\x1b');
  });
});

describe('terminalJson', () => {
  it('escapes what JSON leaves raw and parses back to the same value', () => {
    const line = terminalJson({ shop_name: HOSTILE });

    // eslint-disable-next-line no-control-regex
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(line)).toEqual({ shop_name: HOSTILE });
  });
});
