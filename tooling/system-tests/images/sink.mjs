// The SMTP sink and logo host of the whole-system test, run with node inside
// a container on the test's network (aliases mailpit and logos):
// - SMTP on 1025 (the smtp-server package, mounted read-only from the
//   workspace at SMTP_SERVER_MODULE): each message becomes one JSON file in
//   /mail, { rcptTo, raw }, written whole before it appears;
// - HTTP on 8000: GET /wappen.png answers a 1×1 PNG.
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';

const load = createRequire(import.meta.url);
const { SMTPServer } = load(process.env.SMTP_SERVER_MODULE);

const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
let received = 0;

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, session, callback) {
    const chunks = [];
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('end', () => {
      const file = path.join('/mail', `${Date.now()}-${(received += 1)}.json`);
      const message = { rcptTo: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') };
      fs.writeFileSync(`${file}.part`, JSON.stringify(message));
      fs.renameSync(`${file}.part`, file);
      callback();
    });
  },
});
smtp.listen(1025, '0.0.0.0');

http
  .createServer((req, res) => {
    if (req.url === '/wappen.png') {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG_1X1.length });
      res.end(PNG_1X1);
    } else {
      res.writeHead(404);
      res.end();
    }
  })
  .listen(8000, '0.0.0.0');

process.on('SIGTERM', () => process.exit(0));
