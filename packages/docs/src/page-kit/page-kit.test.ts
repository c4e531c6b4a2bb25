import { describe, expect, it } from 'vitest';
import { PALETTE, PRODUCT_NAME, escapeHtml, renderKeyForm, renderPageShell } from './index.js';

describe('escapeHtml', () => {
  it('escapes all five characters that can end text or an attribute', () => {
    expect(escapeHtml(`<a href='x' title="y">&</a>`)).toBe('&lt;a href=&#39;x&#39; title=&quot;y&quot;&gt;&amp;&lt;/a&gt;');
  });
});

describe('renderPageShell', () => {
  const page = renderPageShell({ lang: 'de', title: 'Preise <& Größen>', body: '<main><h1>Hallo</h1></main>' });

  it('writes a complete document: doctype, language, charset, viewport, title, icon and the palette', () => {
    expect(page.startsWith('<!doctype html>\n<html lang="de">\n<head>\n<meta charset="utf-8">\n')).toBe(true);
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(page).toContain('<title>Preise &lt;&amp; Größen&gt;</title>');
    expect(page).toContain('<link rel="icon" type="image/svg+xml" href="/favicon.ico">');
    expect(page).toContain(`<style>${PALETTE}</style>`);
    expect(page).toContain('<body>\n<main><h1>Hallo</h1></main>\n</body>\n</html>\n');
    expect(page).not.toContain('noindex');
    expect(page).not.toContain('.key-form');
  });

  it('puts the page’s head, rules, nonce, robots line and the product’s name where asked', () => {
    const shell = renderPageShell({
      lang: 'en',
      title: 'Allow access',
      body: '',
      head: '<link rel="alternate" type="text/markdown" href="/x">',
      styles: '.card { padding: 1rem; }',
      productInTitle: true,
      noindex: true,
      icon: false,
      nonce: 'n0"nce',
    });
    expect(shell).toContain(`<title>Allow access · ${escapeHtml(PRODUCT_NAME)}</title>`);
    expect(shell).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(shell).not.toContain('rel="icon"');
    expect(shell).toMatch(/<link rel="alternate" type="text\/markdown" href="\/x">\n<style nonce="n0&quot;nce">/);
    expect(shell.indexOf(PALETTE)).toBeLessThan(shell.indexOf('.card { padding: 1rem; }'));
  });

  it('adds the key form’s rules for a page that carries the form', () => {
    expect(renderPageShell({ lang: 'en', title: 'Keys', body: '', keyForm: true })).toContain('.key-form .field-error');
  });
});

describe('renderKeyForm', () => {
  const production = { action: 'https://merch.example.net/developers/keys', sandbox: false, liveFormUrl: 'https://merch.example.net/developers#create-a-key' };

  it('posts name, e-mail and mode, every field labelled, sandbox chosen and the fields empty', () => {
    const form = renderKeyForm(production);
    expect(form).toMatch(/^<form class="key-form" method="post" action="https:\/\/merch\.example\.net\/developers\/keys">\n/);
    expect(form).toMatch(/<label for="key-name">[^<]+<\/label>\n<input id="key-name" name="name" type="text" required minlength="\d+" maxlength="\d+"/);
    expect(form).toMatch(/<label for="key-email">[^<]+<\/label>\n<input id="key-email" name="email" type="email" required /);
    expect(form).toContain('<input type="radio" name="mode" value="sandbox" checked>');
    expect(form).toContain('<input type="radio" name="mode" value="live">');
    expect(form).not.toContain('value=""');
    expect(form).not.toContain('aria-invalid');
    expect(form).not.toMatch(/\n\s*\n/);
  });

  it('offers no live keys on the sandbox and links the production portal’s form instead', () => {
    const form = renderKeyForm({ ...production, action: 'https://merch.example.net/sandbox/developers/keys', sandbox: true });
    expect(form).not.toContain('value="live"');
    expect(form).toContain('<a href="https://merch.example.net/developers#create-a-key">');
  });

  it('gives back what was typed, as text, with each problem next to its field', () => {
    const form = renderKeyForm({
      ...production,
      values: { name: '"><script>x</script>', email: 'not-an-email', mode: 'live' },
      problems: [
        { field: 'email', message: 'Enter a valid e-mail address.' },
        { field: 'mode', message: 'Choose <one>.' },
      ],
    });
    expect(form).not.toContain('<script>');
    expect(form).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(form).toMatch(/<input id="key-email" [^>]*value="not-an-email" aria-invalid="true" aria-describedby="key-email-error">\n<span class="field-error" id="key-email-error">Enter a valid e-mail address\.<\/span><\/p>/);
    expect(form).toContain('<fieldset aria-describedby="key-mode-error">');
    expect(form).toContain('<span class="field-error" id="key-mode-error">Choose &lt;one&gt;.</span>');
    expect(form).toContain('<input type="radio" name="mode" value="live" checked>');
    expect(form).toContain('<input type="radio" name="mode" value="sandbox">');
    expect(form).not.toMatch(/id="key-name"[^>]*aria-invalid/);
  });
});
