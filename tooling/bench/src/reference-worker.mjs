// The reference the intake worker is judged against, run as its own process
// so /proc gives its CPU alone:
//   node reference-worker.mjs   (settings in the environment, below)
// A bare BullMQ worker on a queue filled with the same jobs as the intake
// drain: for each job it composes the same two messages (to the operator:
// every field in text and HTML with the request as a JSON attachment; to the
// contact: a short confirmation in text and HTML) with nodemailer's public
// API, sends both over one pooled transport to the same SMTP sink, and
// appends one entry to a Redis list. Nothing else: no validation, no step
// records, no limit, no logging, no metrics.
import { SERVICE_FACTS } from '@msa/contracts';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import nodemailer from 'nodemailer';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const redisUrl = env('REDIS_URL');
const queueName = env('REFERENCE_QUEUE');
const prefix = env('REFERENCE_QUEUE_PREFIX');
const listKey = env('REFERENCE_LIST_KEY');
const concurrency = Number(env('REFERENCE_CONCURRENCY'));
const from = env('MAIL_FROM');
const operator = env('OPERATOR_EMAIL');

const transport = nodemailer.createTransport(
  { url: env('SMTP_URL'), pool: true, maxConnections: 5, maxMessages: 10_000 },
  // The worker's message defaults: base64 text parts, no X-Mailer, nothing read from disk or network.
  { textEncoding: 'base64', xMailer: false, disableFileAccess: true, disableUrlAccess: true },
);

const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const yesNo = (v) => (v ? 'ja' : 'nein');

function rowsOf({ request_id: id, body, result, owner_id: owner }) {
  const org = body.organization;
  const rows = [
    ['Shop-Name', body.shop_name],
    ['Shop-Art', result.shop_type],
    ['Design-Service', yesNo(body.design_service)],
    ['Sammelbestellung bis', body.group_order_until ?? '–'],
    ['Passwortschutz', yesNo(body.password_protection)],
    ['Privater Shop (im Kundenkonto)', yesNo(body.private_shop)],
    ['Kundenkonto anlegen', yesNo(body.customer_account)],
    ['Anlass', body.occasion ?? '–'],
    ['Teamgröße', body.team_size ?? '–'],
    ['Anmerkungen', body.notes ?? '–'],
    ['Organisation', `${org.name} (${org.type})`],
    ['Ansprechperson', org.contact_name],
    ['E-Mail', org.email],
    ['Telefon', org.phone ?? '–'],
  ];
  body.products.forEach((p, i) => {
    const resolved = result.products[i];
    rows.push([`Produkt ${i + 1}`, `${resolved?.product ?? p.product} (${resolved?.handle ?? '–'})`], ['Farben', p.colors.join(', ')], ['Veredelung', p.decoration]);
    for (const d of p.designs) rows.push(['Position', d.position ?? '–'], ['Breite', `${d.width_cm ?? '–'} cm`], ['Kommentar', d.comment ?? '–']);
  });
  rows.push(['Anfrage-ID', id], ['Eingegangen', result.created_at], ['API-Client', owner]);
  return rows;
}

function operatorMail(job) {
  const { request_id: id, body } = job;
  const org = body.organization;
  const rows = rowsOf(job);
  const intro = `Neue Shop-Anfrage ${id} von ${org.name} (${org.contact_name}).`;
  return {
    from,
    to: operator,
    replyTo: { name: org.contact_name, address: org.email },
    subject: `[unbestätigt] Neue Shop-Anfrage: ${body.shop_name} – ${org.name} (${id})`,
    messageId: `<${id}.operator@bench.example.com>`,
    text: `${intro}\n\n${rows.map(([k, v]) => `${k}: ${v}`).join('\n')}\n`,
    html: `<p>${escape(intro)}</p><table>${rows.map(([k, v]) => `<tr><th>${escape(k)}</th><td>${escape(v)}</td></tr>`).join('')}</table>`,
    attachments: [
      {
        filename: `anfrage-${id}.json`,
        contentType: 'application/json; charset=utf-8',
        content: `${JSON.stringify({ id, owner_id: job.owner_id, result: job.result, request: body }, null, 2)}\n`,
      },
    ],
  };
}

function confirmationMail({ request_id: id, body }) {
  const text =
    `Guten Tag,\n\nIhre Shop-Anfrage „${body.shop_name}“ ist bei uns eingegangen (${id}). ` +
    `Wir melden uns innerhalb von ${SERVICE_FACTS.replyWithinHours} Stunden mit einem Entwurf.\n\nMit freundlichen Grüßen\nIhr Merch-Shop-Team\n`;
  return {
    from,
    to: body.organization.email,
    replyTo: operator,
    subject: `Ihre Shop-Anfrage ${id} ist eingegangen`,
    messageId: `<${id}.confirmation@bench.example.com>`,
    text,
    html: `<p>${escape(text).replace(/\n/g, '<br>')}</p>`,
  };
}

const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
const worker = new Worker(
  queueName,
  async (job) => {
    const data = job.data;
    await transport.sendMail(operatorMail(data));
    await transport.sendMail(confirmationMail(data));
    await redis.rpush(listKey, data.request_id);
  },
  { connection: redis, prefix, concurrency, removeOnComplete: { age: 24 * 3600 } },
);
worker.on('error', (err) => process.stderr.write(`reference worker: ${err.message}\n`));
await worker.waitUntilReady();
process.stdout.write('ready reference-worker\n');

process.on('SIGTERM', async () => {
  await worker.close();
  transport.close();
  redis.disconnect();
  process.exit(0);
});
