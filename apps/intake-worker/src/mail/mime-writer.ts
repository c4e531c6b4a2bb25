/*
 * Writes the e-mails this worker sends (text and HTML alternatives, optional
 * attachments) straight into one buffer, without building nodemailer's MIME
 * tree for each of them. The tree cost more CPU per delivery than anything
 * else in the worker: a node per part, each header key normalised by regular
 * expressions at every set and get, a random boundary base per node, and the
 * constant From and To parsed again for every message.
 *
 * The bytes stay nodemailer's: every header value is encoded by a MimeNode's
 * own encodeHeaderValue and folded by its foldLines, Content-Type and
 * Content-Disposition go through its buildHeaderValue, and the layout (header
 * order, boundaries, transfer encodings) is the composer's. A message of any
 * other shape returns null and goes through the composer. The tests compare
 * both byte for byte.
 */
import { randomBytes } from 'node:crypto';
import { getOrBuild } from '@msa/service-kit';
import type { SendMailOptions } from 'nodemailer';
import * as mimeFuncs from 'nodemailer/lib/mime-funcs';
import MimeNode from 'nodemailer/lib/mime-node';

export interface WrittenMail {
  envelope: { from: string | false; to: string[] };
  messageId: string;
  raw: Buffer;
}

/** What the composer would otherwise choose itself; tests pin both to compare bytes. */
export interface WriteOptions {
  date?: Date;
  baseBoundary?: string;
}

type Address = string | { name: string; address: string };

/** The public methods used here, some of which the @types package does not declare. */
interface HeaderEncoder {
  encodeHeaderValue(key: string, value: Address): string;
  setHeader(key: string, value: Address): HeaderEncoder;
  getEnvelope(): { from: string | false; to: string[] };
}

const KNOWN_FIELDS = new Set(['from', 'to', 'replyTo', 'subject', 'messageId', 'headers', 'text', 'html', 'attachments']);
const KNOWN_ATTACHMENT_FIELDS = new Set(['filename', 'content', 'contentType']);
/** The custom headers we send, with the spelling nodemailer gives their keys. */
const CUSTOM_HEADER_KEYS: Record<string, string> = {
  'X-Request-Id': 'X-Request-ID',
  traceparent: 'Traceparent',
  'X-Shop-Request-Id': 'X-Shop-Request-ID',
};
/** A file name the composer writes as it is in both name= and filename= (no quoting, no encoding). */
const PLAIN_FILENAME = /^[A-Za-z0-9_][A-Za-z0-9._+]*(?:-[A-Za-z0-9._+]+)*$/;
/** The composer's own alternatives and attachments, not text, multipart or message parts. */
const ATTACHMENT_TYPE = /^(?:application|image|audio|video|font|model)\/[A-Za-z0-9.+-]+(?:; ?charset=utf-8)?$/;
const BOUNDARY_PREFIX = '--_NmP';

// One node to encode with, never part of a message: a baseBoundary of its own spares the random bytes.
const encoder = new MimeNode(false, { textEncoding: 'B', baseBoundary: 'encoder' }) as unknown as HeaderEncoder;
const newNode = () => new MimeNode(false, { textEncoding: 'B', baseBoundary: 'envelope' }) as unknown as HeaderEncoder;

// From, the operator's address and the envelope parts taken from them are the same in every message.
const CACHE_LIMIT = 64;
const encodedAddresses = new Map<string, string>();
const envelopeFroms = new Map<string, string | false>();
const envelopeTos = new Map<string, string[]>();

const cached = <V>(cache: Map<string, V>, key: string, compute: () => V): V => getOrBuild(cache, key, CACHE_LIMIT, compute);

const ADDRESS_KEYS = new Set(['From', 'To', 'Reply-To']);

// randomBytes costs about as much for 8 bytes as for 4 KiB, so boundaries take their 8 from a pool.
let entropy = Buffer.alloc(0);
let entropyAt = 0;

function randomHex8(): string {
  if (entropyAt + 8 > entropy.length) {
    entropy = randomBytes(4096);
    entropyAt = 0;
  }
  entropyAt += 8;
  return entropy.toString('hex', entropyAt - 8, entropyAt);
}

function headerLine(key: string, value: Address): string | null {
  const encoded =
    typeof value === 'string' && ADDRESS_KEYS.has(key)
      ? cached(encodedAddresses, `${key}:${value}`, () => encoder.encodeHeaderValue(key, value))
      : encoder.encodeHeaderValue(key, value);
  return encoded.trim() ? mimeFuncs.foldLines(`${key}: ${encoded}`, 76) : null;
}

function isAddress(value: unknown): value is Address {
  if (typeof value === 'string') return value.length > 0;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const { name, address, ...rest } = value as Record<string, unknown>;
  return typeof name === 'string' && typeof address === 'string' && Object.keys(rest).length === 0;
}

interface Attachment {
  filename: string;
  content: string | Buffer;
  contentType: string;
}

function isPlainAttachment(value: unknown): value is Attachment {
  if (!value || typeof value !== 'object') return false;
  const a = value as Record<string, unknown>;
  if (!Object.keys(a).every((k) => KNOWN_ATTACHMENT_FIELDS.has(k))) return false;
  const contentOk = (typeof a.content === 'string' || Buffer.isBuffer(a.content)) && a.content.length > 0;
  return contentOk && typeof a.filename === 'string' && PLAIN_FILENAME.test(a.filename) && typeof a.contentType === 'string' && ATTACHMENT_TYPE.test(a.contentType);
}

/** The message as nodemailer's composer (textEncoding base64) writes it, or null for a shape this writer does not know. */
export function writeMail(message: SendMailOptions, options: WriteOptions = {}): WrittenMail | null {
  const m = message as Record<string, unknown>;
  for (const key of Object.keys(m)) if (m[key] !== undefined && !KNOWN_FIELDS.has(key)) return null;
  const { from, to, replyTo, subject, messageId, text, html } = m;
  const headers = (m.headers ?? {}) as Record<string, unknown>;
  const attachments = (m.attachments ?? []) as unknown[];
  if (typeof from !== 'string' || !isAddress(from) || !isAddress(to) || (replyTo !== undefined && !isAddress(replyTo))) return null;
  if (typeof subject !== 'string' || !subject || typeof messageId !== 'string' || !messageId) return null;
  if (typeof text !== 'string' || !text || typeof html !== 'string' || !html) return null;
  if (typeof headers !== 'object' || Array.isArray(headers) || !Array.isArray(attachments)) return null;
  if (!Object.entries(headers).every(([k, v]) => CUSTOM_HEADER_KEYS[k] && typeof v === 'string')) return null;
  if (!attachments.every(isPlainAttachment)) return null;

  const envelopeFrom = cached(envelopeFroms, from, () => newNode().setHeader('From', from).getEnvelope().from);
  // No address in From: the composer would take the envelope's sender from Reply-To.
  if (!envelopeFrom) return null;
  const envelopeTo =
    typeof to === 'string' ? cached(envelopeTos, to, () => newNode().setHeader('To', to).getEnvelope().to) : newNode().setHeader('To', to).getEnvelope().to;

  const boundaryBase = `${BOUNDARY_PREFIX}-${options.baseBoundary ?? randomHex8()}`;
  const mixed = attachments.length > 0;
  // Node numbers as the composer gives them: the root first, then depth first.
  const alternativeBoundary = `${boundaryBase}-Part_${mixed ? 2 : 1}`;

  const root: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    const line = headerLine(CUSTOM_HEADER_KEYS[key]!, value as string);
    if (line) root.push(line);
  }
  for (const [key, value] of [
    ['From', from],
    ['To', to],
    ['Reply-To', replyTo],
    ['Subject', subject],
    ['Message-ID', messageId],
  ] as const) {
    if (!value) continue;
    const line = headerLine(key, value);
    if (line) root.push(line);
  }
  root.push(`Date: ${(options.date ?? new Date()).toUTCString().replace(/GMT/, '+0000')}`, 'MIME-Version: 1.0');

  const out: string[] = [];
  const alternative = (lead: string) => {
    out.push(`${lead}${multipartLine('alternative', alternativeBoundary)}\r\n\r\n`);
    out.push(`--${alternativeBoundary}\r\n`);
    textPart(out, 'text/plain; charset=utf-8', text);
    out.push(`\r\n--${alternativeBoundary}\r\n`);
    textPart(out, 'text/html; charset=utf-8', html);
    out.push(`\r\n--${alternativeBoundary}--\r\n`);
  };
  if (mixed) {
    const mixedBoundary = `${boundaryBase}-Part_1`;
    root.push(multipartLine('mixed', mixedBoundary));
    out.push(`${root.join('\r\n')}\r\n\r\n--${mixedBoundary}\r\n`);
    alternative('');
    for (const attachment of attachments as Attachment[]) {
      out.push(`\r\n--${mixedBoundary}\r\n`);
      attachmentPart(out, attachment);
    }
    out.push(`\r\n--${mixedBoundary}--\r\n`);
  } else {
    alternative(`${root.join('\r\n')}\r\n`);
  }
  return { envelope: { from: envelopeFrom, to: [...envelopeTo] }, messageId, raw: joinText(out) };
}

function contentTypeLine(value: string): string {
  return mimeFuncs.foldLines(`Content-Type: ${value}`, 76);
}

function multipartLine(subtype: string, boundary: string): string {
  return contentTypeLine(mimeFuncs.buildHeaderValue({ value: `multipart/${subtype}`, params: { boundary } }));
}

/** A text alternative: 7bit when it is short-lined ASCII, else base64 (the composer's choice with textEncoding base64). */
function textPart(out: string[], contentType: string, content: string): void {
  const sevenBit = mimeFuncs.isPlainText(content) && !mimeFuncs.hasLongerLines(content, 76);
  out.push(`${contentTypeLine(contentType)}\r\nContent-Transfer-Encoding: ${sevenBit ? '7bit' : 'base64'}\r\n\r\n`);
  out.push(sevenBit ? content : base64Lines(content));
}

function attachmentPart(out: string[], { filename, content, contentType }: Attachment): void {
  const type = mimeFuncs.parseHeaderValue(contentType);
  const disposition = mimeFuncs.buildHeaderValue({ value: 'attachment', params: { filename } });
  out.push(
    `${contentTypeLine(`${mimeFuncs.buildHeaderValue(type)}; name=${filename}`)}\r\nContent-Transfer-Encoding: base64\r\n` +
      `${mimeFuncs.foldLines(`Content-Disposition: ${disposition}`, 76)}\r\n\r\n`,
  );
  out.push(base64Lines(content));
}

/** base64 in lines of 76 characters, the last without a line break, as nodemailer's encoder writes it. */
export function base64Lines(content: string | Buffer): string {
  const encoded = (typeof content === 'string' ? Buffer.from(content, 'utf8') : content).toString('base64');
  if (encoded.length <= 76) return encoded;
  const lines: string[] = [];
  for (let i = 0; i < encoded.length; i += 76) lines.push(encoded.slice(i, i + 76));
  return lines.join('\r\n');
}

/** The written message ends with its closing boundary line, so it needs no line break added; one copy into a buffer. */
function joinText(chunks: string[]): Buffer {
  return Buffer.from(chunks.join(''), 'utf8');
}

/** Like nodemailer's composer, the message ends with a line break. */
export function joinWithLastNewline(chunks: (string | Buffer)[]): Buffer {
  const raw = Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c, 'utf8') : c)));
  const last = raw[raw.length - 1];
  if (last === 0x0a) return raw;
  return Buffer.concat([raw, Buffer.from(last === 0x0d ? '\n' : '\r\n')]);
}
