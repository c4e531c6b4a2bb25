// Budget 5: another caller's catalog reads while 300 slow uploads run, the
// attack of the slow-uploads drill (tooling/drills/src/slow-uploads.mjs) on
// catalog, identity and the gateway as processes. The drill checks that
// every read and token is answered; this judges how fast: the reads' p99
// during the uploads against their p99 just before.
import { p99, slowUploadAttack } from '../../drills/src/slow-uploads.mjs';
import { frontServices } from './front-services.mjs';
import { spawnService, waitForOk } from './processes.mjs';

export async function runUploadsBench({ root, redisEnv, keyPrefix, services, settings, log }) {
  // The attack's keys and uploads come from several addresses, named in X-Forwarded-For.
  const { publicBaseUrl, common, apps } = await frontServices({ redisEnv, keyPrefix, gatewayEnv: { TRUST_PROXY: 'true' } });
  log('budget 5: starting catalog, identity and gateway');
  const started = ['catalog', 'identity', 'gateway'].map((name) => {
    const service = spawnService(root, { name, app: name, env: { ...common, ...apps[name].env }, nodeArgs: settings.nodeArgs, nodeOptions: settings.nodeOptionsOf(name) });
    services.push(service);
    return service;
  });
  await Promise.all(started.map((s) => waitForOk(apps[s.name].ready, s)));
  log('budget 5: a reader, then 300 slow uploads beside it (about 30 s)');
  const attack = await slowUploadAttack(publicBaseUrl);
  for (const service of started) await service.stop();
  return {
    ...attack,
    p99Before: p99(attack.baseline),
    p99During: p99(attack.during),
    slowestDuring: Math.max(...attack.during.map((r) => r.ms)),
    /** Reads and tokens not answered 200; none at all taken counts as one. */
    unanswered:
      [...attack.baseline, ...attack.during].filter((r) => r.status !== 200).length +
      attack.tokens.filter((status) => status !== 200).length +
      (attack.tokens.length === 0 ? 1 : 0),
  };
}
