// Bundles the view script (src/app/main.ts) and styles with esbuild and writes
// one self-contained HTML document per view into dist/views/. The views share
// one script: a product card can become a quote and a quote a shop request.
import { SERVICE_FACTS } from '@msa/contracts';
import { build, transform } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const VIEWS = {
  'product-view': 'Products',
  'quote-view': 'Quote',
  'request-view': 'Shop request',
};

const script = await build({
  entryPoints: [new URL('src/app/main.ts', root).pathname],
  bundle: true,
  write: false,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  minify: true,
  legalComments: 'none',
  define: { __REPLY_WITHIN_HOURS__: String(SERVICE_FACTS.replyWithinHours) },
});
const css = await transform(readFileSync(new URL('src/app/styles.css', root), 'utf8'), { loader: 'css', minify: true });

// A literal "</script" inside the script would end the element early.
const js = script.outputFiles[0].text.replaceAll('</script', '<\\/script');

mkdirSync(new URL('dist/views/', root), { recursive: true });
for (const [name, title] of Object.entries(VIEWS)) {
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    `<title>${title}</title><style>${css.code}</style></head>` +
    `<body data-view="${name}"><main id="app" aria-live="polite"></main><script>${js}</script></body></html>`;
  writeFileSync(new URL(`dist/views/${name}.html`, root), html);
}
