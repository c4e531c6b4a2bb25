/*
 * An SVG logo is a document a caller wrote, opened by the operator's mail
 * client or browser: it may carry scripts, event handlers, HTML in a
 * `foreignObject`, references that load from elsewhere, and entities. Before
 * it is attached it goes through DOMPurify (SVG profile) on a jsdom window,
 * with hooks for what the profile lets through: links and `<use>` to
 * anything but a fragment of the same file or an embedded raster image, and
 * CSS that loads from outside. What is left is written out as XML again.
 *
 * Loaded only when an SVG arrives (collect-logos imports it then): jsdom
 * takes about 0.6 s and 70 MB to load, which a worker that never sees an
 * SVG should not pay.
 */
import createDOMPurify, { type Config, type DOMPurify, type WindowLike } from 'dompurify';
import { JSDOM } from 'jsdom';

export type SvgSanitised = { ok: true; data: Buffer } | { ok: false; reason: string };

const SVG_NS = 'http://www.w3.org/2000/svg';

// Entities are refused before any parser sees them (entity expansion, external entities).
const ENTITY_DECLARATION = /<!ENTITY/i;
const INTERNAL_SUBSET = /<!DOCTYPE[^>[]*\[/i;

// A reference inside the file (`#logo`) or a raster image carried in it.
const INTERNAL_REFERENCE = /^\s*(?:#[^\s]*|data:image\/(?:png|jpeg|jpg|gif|webp);base64,[a-z0-9+/=\s]*)\s*$/i;
// `url(` to anything but a fragment; CSS escapes could spell `url(` unseen, so any backslash counts.
const EXTERNAL_URL = /url\s*\(\s*['"]?\s*(?!#)/i;
const UNSAFE_CSS = /url\s*\(\s*['"]?\s*(?!#)|@import|expression\s*\(|image-set\s*\(|\\/i;
const REFERENCE_ATTRIBUTES = new Set(['href', 'xlink:href', 'src', 'action', 'formaction']);

// What must not be in the output, whatever the sanitiser did: a second look at the written file.
const STILL_UNSAFE = /<script|<foreignobject|<iframe|<!entity|<!doctype|\son[a-z]+\s*=|javascript:|(?:xlink:)?href\s*=\s*["'](?!#|data:image\/)/i;

const PURIFY_CONFIG: Config & { RETURN_DOM_FRAGMENT: true } = {
  USE_PROFILES: { svg: true, svgFilters: true },
  // `<use>` is how real logos repeat a shape; its reference is checked by the hook.
  ADD_TAGS: ['use'],
  // Animations can set an attribute (`href`) after sanitising; logos do not animate.
  FORBID_TAGS: ['foreignObject', 'script', 'iframe', 'animate', 'set', 'animateMotion', 'animateTransform', 'discard', 'handler', 'listener'],
  RETURN_DOM_FRAGMENT: true,
};

interface Purifier {
  purify: DOMPurify;
  window: JSDOM['window'];
}

let purifier: Purifier | undefined;

function purifierOf(): Purifier {
  if (purifier) return purifier;
  const { window } = new JSDOM('');
  const purify = createDOMPurify(window as unknown as WindowLike);
  purify.addHook('uponSanitizeAttribute', (_node, data) => {
    const name = data.attrName.toLowerCase();
    if ((REFERENCE_ATTRIBUTES.has(name) || name.endsWith(':href')) && !INTERNAL_REFERENCE.test(data.attrValue)) data.keepAttr = false;
    else if (name === 'style' ? UNSAFE_CSS.test(data.attrValue) : EXTERNAL_URL.test(data.attrValue)) data.keepAttr = false;
  });
  purify.addHook('uponSanitizeElement', (node, data) => {
    // A style sheet that loads from outside is emptied; the shapes keep their own fills.
    if (data.tagName === 'style' && UNSAFE_CSS.test(node.textContent ?? '')) node.textContent = '';
  });
  purifier = { purify, window };
  return purifier;
}

/** The SVG with nothing left that runs or loads, as UTF-8 XML; or why it cannot be made safe. */
export function sanitiseSvg(data: Buffer): SvgSanitised {
  const text = data.toString('utf8');
  if (ENTITY_DECLARATION.test(text) || INTERNAL_SUBSET.test(text)) return { ok: false, reason: 'declares entities' };
  const { purify, window } = purifierOf();
  let svg: Element | undefined;
  try {
    const fragment = purify.sanitize(text, PURIFY_CONFIG);
    svg = [...fragment.children].find((el) => el.localName === 'svg' && el.namespaceURI === SVG_NS);
  } catch (err) {
    return { ok: false, reason: `not readable (${err instanceof Error ? err.message : String(err)})` };
  }
  if (!svg) return { ok: false, reason: 'no SVG element left' };
  const xml = new window.XMLSerializer().serializeToString(svg);
  if (STILL_UNSAFE.test(xml)) return { ok: false, reason: 'still holds active content' };
  return { ok: true, data: Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n${xml}\n`, 'utf8') };
}
