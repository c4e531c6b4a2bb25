// @module `jsonwebtoken()`: the library required on first use, so a process that never verifies a foreign token never loads it, nor the semver it brings
import { createRequire } from 'node:module';
import type Jwt from 'jsonwebtoken';

// jsonwebtoken brings semver along (about 70 files, and their share of an
// idle process's memory) for work only some requests need: an access token,
// an internal token in a form our signer never writes. It is required on the
// first such request.
let jwt: typeof Jwt | undefined;

export function jsonwebtoken(): typeof Jwt {
  return (jwt ??= createRequire(import.meta.url)('jsonwebtoken') as typeof Jwt);
}
