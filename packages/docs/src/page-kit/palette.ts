// The colours and type every page for people shares (the developer portal,
// the legal pages, the consent page, the portal's key pages), light and dark.

/** Custom properties for light and dark, the box model and the body's type: the first rules of every page's style. */
export const PALETTE = `
:root { color-scheme: light dark; --fg: #1d2430; --muted: #5b6472; --bg: #ffffff; --panel: #f4f6f9; --line: #dde2ea; --accent: #0b6bcb; --bad: #b42318; --note: #fff6e0; --note-line: #e8c15a; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ef; --muted: #a3acba; --bg: #12161c; --panel: #1b2129; --line: #2c3440; --accent: #6cb2ff; --bad: #ff8a80; --note: #2c2514; --note-line: #8a6d1f; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
a { color: var(--accent); }
`;

/** The key form's rules, all under `.key-form`, so they style nothing else on a page. */
export const KEY_FORM_CSS = `
.key-form { max-width: 32rem; margin: 1.5rem 0; padding: 1rem 1.25rem; background: var(--panel); border: 1px solid var(--line); border-radius: 8px; }
.key-form p { margin: 0 0 1rem; }
.key-form label { display: block; font-weight: 600; margin-bottom: 0.3rem; }
.key-form input[type="text"], .key-form input[type="email"] { display: block; width: 100%; padding: 0.5rem 0.6rem; font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 6px; }
.key-form input[aria-invalid="true"] { border-color: var(--bad); }
.key-form input:focus-visible, .key-form button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.key-form fieldset { min-width: 0; margin: 0 0 1rem; padding: 0.5rem 0.9rem 0.7rem; border: 1px solid var(--line); border-radius: 6px; }
.key-form legend { font-weight: 600; padding: 0 0.3rem; }
.key-form label.choice { font-weight: normal; margin: 0.35rem 0; }
.key-form .form-hint { margin: 0.35rem 0; color: var(--muted); font-size: 0.92rem; }
.key-form .field-error { display: block; color: var(--bad); font-size: 0.92rem; margin: 0.3rem 0 0; }
.key-form button { font: inherit; font-weight: 600; padding: 0.5rem 1.1rem; color: #fff; background: var(--accent); border: 0; border-radius: 6px; cursor: pointer; }
@media (prefers-color-scheme: dark) { .key-form button { color: #0b1320; } }
`;
