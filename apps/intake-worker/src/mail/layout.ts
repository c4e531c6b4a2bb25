/*
 * One model, two renderings: every e-mail is a list of sections of labelled
 * rows, written once and rendered as plain text and as simple HTML, so both
 * parts always carry the same fields. Values are data: the HTML escapes
 * them, and nothing here ever becomes a header.
 */
import { escapeHtml } from '@msa/contracts';

export interface Row {
  label: string;
  value: string;
  /** Nesting level (designs under a product). */
  depth?: number;
}

export interface Section {
  title: string;
  rows: Row[];
}

/** For a subject or display name: line breaks, control characters and direction overrides become spaces. */
export function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g, ' ').replace(/\s{2,}/g, ' ').trim();
}

/** A value from outside (a client's name) cut to `max` characters, marked with an ellipsis. */
export function clip(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1).trimEnd()}…`;
}

/** The closing line of every e-mail to a person: where to read what we do with their data. */
export interface MailFooter {
  text: string;
  url: string;
}

const FOOTER_TEXT: Record<'de' | 'en', string> = {
  de: 'Wie wir mit Ihren Daten umgehen und wie Sie sie einsehen oder löschen: Datenschutzerklärung',
  en: 'How we handle your data, and how to see or erase it: privacy notice',
};

/** The privacy notice footer, in the e-mail's language, linking `<publicBaseUrl>/privacy` in that language. */
export function privacyFooter(publicBaseUrl: string, lang: 'de' | 'en'): MailFooter {
  return { text: FOOTER_TEXT[lang], url: `${publicBaseUrl.replace(/\/+$/, '')}/privacy?lang=${lang}` };
}

export function renderText(intro: string[], sections: Section[], outro: string[] = [], footer?: MailFooter): string {
  const lines = [...intro];
  for (const section of sections) {
    lines.push('', section.title, '-'.repeat(Math.min(section.title.length, 72)));
    for (const row of section.rows) {
      const pad = '  '.repeat(row.depth ?? 0);
      const value = row.value.replace(/\r\n?|\n/g, `\n${pad}    `);
      lines.push(!row.label ? `${pad}${value}` : value ? `${pad}${row.label}: ${value}` : `${pad}${row.label}`);
    }
  }
  if (outro.length) lines.push('', ...outro);
  if (footer) lines.push('', '--', `${footer.text}: ${footer.url}`);
  return `${lines.join('\n')}\n`;
}

/** One style block instead of a style on every cell keeps the message small. */
const STYLE =
  'body{font-family:Arial,Helvetica,sans-serif;font-size:14px;color:#222}h3{margin:20px 0 6px}' +
  'table{border-collapse:collapse}td{vertical-align:top;padding:3px 6px}td.l{color:#555}' +
  'td.d1{padding-left:22px}p.f{margin-top:24px;font-size:12px;color:#555}';

export function renderHtml(title: string, intro: string[], sections: Section[], outro: string[] = [], lang: 'de' | 'en' = 'de', footer?: MailFooter): string {
  const text = (value: string) => escapeHtml(value).replace(/\r\n?|\n/g, '<br>');
  const parts = [
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>`,
    ...intro.map((p) => `<p>${text(p)}</p>`),
  ];
  for (const section of sections) {
    parts.push(`<h3>${escapeHtml(section.title)}</h3><table>`);
    for (const row of section.rows) {
      const depth = row.depth ? ` d${Math.min(row.depth, 1)}` : '';
      parts.push(
        row.label
          ? `<tr><td class="l${depth}">${escapeHtml(row.label)}</td><td>${text(row.value)}</td></tr>`
          : `<tr><td colspan="2" class="${depth.trim()}">${text(row.value)}</td></tr>`,
      );
    }
    parts.push('</table>');
  }
  parts.push(...outro.map((p) => `<p>${text(p)}</p>`));
  if (footer) parts.push(`<p class="f"><a href="${escapeHtml(footer.url)}">${escapeHtml(footer.text)}</a></p>`);
  parts.push('</body></html>');
  return parts.join('\n');
}
