/*
 * The request list holds caller text (names, shop names, notes). Printed
 * raw, an escape sequence in it would drive the operator's terminal (move
 * the cursor, rewrite earlier lines, set the title, ring the bell) and a
 * line break or a direction override would forge or hide lines. Every such
 * character is shown as its escape instead.
 */

// C0 controls, DEL, C1 controls, line and paragraph separators, bidi marks, overrides and isolates.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\\]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };

/** `value` with every control and direction character written as `\n`, `\x1b`, `\u202e`; a backslash as `\\`. */
export function terminalText(value: string): string {
  return value.replace(UNSAFE, (c) => {
    const named = NAMED[c];
    if (named) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

// What JSON.stringify leaves as it is but a terminal acts on (DEL, C1) or shows reordered (bidi).
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** A JSON line with those characters as `\uXXXX` escapes: the same JSON value, safe to print. */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value).replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
