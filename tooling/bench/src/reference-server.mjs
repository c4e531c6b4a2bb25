// The references the services are judged against, each run as its own
// process so /proc gives its CPU alone:
//   node reference-server.mjs node-http <port> <body file> <content type>
//   node reference-server.mjs express   <port> <body file> <content type>
//   node reference-server.mjs proxy     <port> <upstream url>
// node-http and express answer every GET with the bytes of the body file (the
// catalog's own answer, fetched from it first); proxy is a bare express app
// with http-proxy-middleware and a keep-alive agent in front of an upstream,
// as the gateway is in front of the catalog. Nothing else: no logging, no
// middleware, the least either library needs to serve that answer.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';

const [kind, portArg, ...rest] = process.argv.slice(2);
const port = Number(portArg);

function listening(server) {
  server.on('listening', () => process.stdout.write(`ready ${kind} ${port}\n`));
}

if (kind === 'node-http') {
  const [file, contentType] = rest;
  const body = readFileSync(file);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
    res.end(body);
  });
  listening(server);
  server.listen(port, '127.0.0.1');
} else if (kind === 'express') {
  const [file, contentType] = rest;
  const body = readFileSync(file);
  const app = express();
  app.get('/{*rest}', (_req, res) => {
    res.type(contentType).send(body);
  });
  listening(app.listen(port, '127.0.0.1'));
} else if (kind === 'proxy') {
  const [upstream] = rest;
  const app = express();
  app.use(
    createProxyMiddleware({
      target: upstream,
      changeOrigin: false,
      agent: new http.Agent({ keepAlive: true, maxSockets: 128 }),
    }),
  );
  listening(app.listen(port, '127.0.0.1'));
} else {
  process.stderr.write(`unknown reference '${kind}': node-http, express or proxy\n`);
  process.exit(2);
}

process.on('SIGTERM', () => process.exit(0));
