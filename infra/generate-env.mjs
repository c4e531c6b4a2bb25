// Prints a .env for `docker compose up` with fresh secrets:
//   node infra/generate-env.mjs > .env
// The signing key is written on one line with literal \n sequences, which
// identity turns back into a PEM.
import { generateKeyPairSync, randomBytes } from 'node:crypto';

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString().trim();
const today = new Date().toISOString().slice(0, 10);

process.stdout.write(
  [
    `INTERNAL_AUTH_SECRET=${randomBytes(32).toString('hex')}`,
    `TOKEN_SIGNING_KEY="${pem.replace(/\n/g, '\\n')}"`,
    `TOKEN_SIGNING_KID=${today}-${randomBytes(3).toString('hex')}`,
    'ADMIN_USER=admin',
    `ADMIN_PASSWORD=${randomBytes(18).toString('base64url')}`,
    '',
  ].join('\n'),
);
