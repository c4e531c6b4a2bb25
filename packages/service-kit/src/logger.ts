// @module `createLogger({ service, level, destination })`: pino JSON lines with `service`; credentials and e-mail bodies redacted by configuration (`REDACT_PATHS`)
import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Paths pino blanks out wherever they appear, so no secret depends on remembering. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-internal-auth"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["x-internal-auth"]',
  'authorization',
  '["x-api-key"]',
  '*["x-api-key"]',
  'api_key',
  'apiKey',
  'client_secret',
  'clientSecret',
  'access_token',
  'password',
  'secret',
  'token',
  '*.api_key',
  '*.apiKey',
  '*.client_secret',
  '*.access_token',
  '*.password',
  '*.secret',
  '*.token',
  '*.authorization',
  'email.html',
  'email.text',
  'mail.html',
  'mail.text',
];

export interface LoggerOptions {
  service: string;
  level?: string;
  /** Where lines go; stdout unless a test captures them. */
  destination?: pino.DestinationStream;
}

export function createLogger({ service, level = 'info', destination }: LoggerOptions): Logger {
  return pino(
    {
      level,
      base: { service },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}
