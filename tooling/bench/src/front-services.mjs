// Catalog, identity and the gateway as processes on free ports, configured
// as budgets 1 and 5 run them; shops, requests and mcp are an address where
// nothing listens (the gateway's /readyz asks them, so /healthz is waited on).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { freePort } from './processes.mjs';

/** `extraPorts` more free ports are taken with the services' own, for the caller's other servers. */
export async function frontServices({ redisEnv, keyPrefix, gatewayEnv = {}, extraPorts = 0 }) {
  const ports = await Promise.all(Array.from({ length: 7 + extraPorts }, freePort));
  const [catalogPort, identityPort, gatewayPort, adminPort, nothingPort, catalogAdminPort, identityAdminPort, ...extra] = ports;
  const secret = randomBytes(32).toString('hex');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicBaseUrl = `http://127.0.0.1:${gatewayPort}`;
  const common = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    PUBLIC_BASE_URL: publicBaseUrl,
    INTERNAL_AUTH_SECRET: secret,
    ...redisEnv,
    REDIS_KEY_PREFIX: keyPrefix,
  };
  const nothing = `http://127.0.0.1:${nothingPort}`;
  const apps = {
    catalog: { env: { CATALOG_PORT: String(catalogPort), CATALOG_ADMIN_PORT: String(catalogAdminPort) }, ready: `http://127.0.0.1:${catalogPort}/readyz` },
    identity: {
      env: {
        IDENTITY_PORT: String(identityPort),
        IDENTITY_ADMIN_PORT: String(identityAdminPort),
        TOKEN_SIGNING_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        TOKEN_SIGNING_KID: `bench-${randomBytes(4).toString('hex')}`,
      },
      ready: `http://127.0.0.1:${identityPort}/readyz`,
    },
    gateway: {
      env: {
        GATEWAY_PORT: String(gatewayPort),
        GATEWAY_ADMIN_PORT: String(adminPort),
        CATALOG_URL: `http://127.0.0.1:${catalogPort}`,
        IDENTITY_URL: `http://127.0.0.1:${identityPort}`,
        SHOPS_URL: nothing,
        REQUESTS_URL: nothing,
        MCP_URL: nothing,
        ...gatewayEnv,
      },
      // The gateway's /readyz also asks shops, requests and mcp, which these runs do not need.
      ready: `${publicBaseUrl}/healthz`,
    },
  };
  return { secret, publicBaseUrl, catalogPort, identityPort, common, apps, extra };
}
