/*
 * One model, two renderings: every e-mail is a list of sections of labelled
 * rows, written once and rendered as plain text and as simple HTML, so both
 * parts always carry the same fields. Values are data: the HTML escapes
 * them, and nothing here ever becomes a header.
 */

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

/** For a subject or display name: line breaks and control characters become spaces. */
export function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').replace(/\s{2,}/g, ' ').trim();
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function renderText(intro: string[], sections: Section[], outro: string[] = []): string {
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
  return `${lines.join('\n')}\n`;
}

export function renderHtml(title: string, intro: string[], sections: Section[], outro: string[] = []): string {
  const para = (text: string) => `<p>${escapeHtml(text).replace(/\r\n?|\n/g, '<br>')}</p>`;
  const parts = [
    '<!doctype html>',
    `<html lang="de"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>`,
    '<body style="font-family: Arial, Helvetica, sans-serif; font-size: 14px; color: #222;">',
    ...intro.map(para),
  ];
  for (const section of sections) {
    parts.push(`<h3 style="margin: 20px 0 6px;">${escapeHtml(section.title)}</h3>`, '<table cellpadding="4" style="border-collapse: collapse;">');
    for (const row of section.rows) {
      const indent = (row.depth ?? 0) * 16;
      const value = escapeHtml(row.value).replace(/\r\n?|\n/g, '<br>');
      parts.push(
        row.label
          ? `<tr><td style="vertical-align: top; padding-left: ${indent + 4}px; color: #555;">${escapeHtml(row.label)}</td><td style="vertical-align: top;">${value}</td></tr>`
          : `<tr><td colspan="2" style="padding-left: ${indent + 4}px;">${value}</td></tr>`,
      );
    }
    parts.push('</table>');
  }
  parts.push(...outro.map(para), '</body></html>');
  return parts.join('\n');
}
