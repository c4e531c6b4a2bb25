// Every figure of a run, written to `.data/bench/latest.json` under stable
// keys (README "latest.json"), so a later run, a script or a closing note can
// compare them without reading the tables. NaN (not measured) is written as
// null.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname } from 'node:path';

const MB = 1024 * 1024;
const round = (v, digits = 1) => (Number.isFinite(v) ? Math.round(v * 10 ** digits) / 10 ** digits : null);

/** The ratios budget 1 judges. */
export function gatewayFigures(r) {
  const c = r.cpuPerRequest;
  return {
    catalogCpuRatio: c.catalogDirect / c.express,
    gatewayCpuRatio: c.gateway / c.proxy,
    /** The same GET without credentials: no key, counted per address. */
    anonymousCpuRatio: c.anonymous / c.proxy,
    behindGatewayCpuRatio: c.catalogBehindGateway / c.catalogDirect,
    /** Behind the gateway ÷ called directly at the same rate, evenly paced: the hop without the difference in load. */
    behindPacedCpuRatio: c.catalogBehindGateway / c.catalogPaced,
    /** The same ratio for the bare express app behind the bare proxy: what a proxy hop alone does to the process behind it. */
    behindProxyCpuRatio: c.proxyUpstream / c.express,
    /** Against the bare proxy in front of bare express: what the gateway's own work costs in rate and tail. */
    throughputRatio: r.runs.gateway.requestsPerSecond / r.runs.proxy.requestsPerSecond,
    p99Ratio: r.runs.gateway.p99 / r.runs.proxy.p99,
  };
}

const speed = (run) => ({ req_per_s: round(run.requestsPerSecond, 0), p50_ms: run.p50, p99_ms: run.p99, requests: run.total });

/** `reference node:http` → `reference_node_http`: service names as JSON keys. */
const keyOf = (name) => name.replace(/[^a-z0-9-]+/gi, '_');

export function buildResults({ startedAt, idle, settings, measured, rss, modules, judged, failure }) {
  const out = {
    meta: {
      started_at: startedAt.toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      cpu_model: os.cpus()[0]?.model.trim() ?? null,
      cpu_idle_percent_at_start: idle,
      load_average_at_start: round(os.loadavg()[0], 2),
      redis: settings.redisTopology,
      node_options: settings.nodeOptions,
      node_options_intake_worker: settings.intake.nodeOptions,
      parts: settings.parts,
      error: failure ? String(failure.message ?? failure) : null,
    },
  };

  const s = measured.search;
  if (s) {
    out.search = {
      p50_ms: round(s.answer.p50, 2),
      p99_ms: round(s.answer.p99, 2),
      search_only_p50_ms: round(s.search.p50, 2),
      search_only_p99_ms: round(s.search.p99, 2),
      index_build_ms: round(s.buildMs, 0),
      entries: s.entries,
    };
  }

  const g = measured.gateway;
  if (g) {
    const c = g.cpuPerRequest;
    const f = gatewayFigures(g);
    out.reference = {
      node_http: { cpu_us_per_request: round(c.nodeHttp), ...speed(g.runs.nodeHttp) },
      express: { cpu_us_per_request: round(c.express), ...speed(g.runs.express) },
      proxy: { cpu_us_per_request: round(c.proxy), upstream_cpu_us_per_request: round(c.proxyUpstream), upstream_cpu_ratio: round(f.behindProxyCpuRatio, 3), ...speed(g.runs.proxy) },
    };
    out.catalog = {
      cpu_us_per_request: round(c.catalogDirect),
      cpu_ratio: round(f.catalogCpuRatio, 3),
      redis_cpu_us_per_request: round(c.redisDirect),
      response_bytes: g.responseBytes,
      ...speed(g.runs.direct),
    };
    out.gateway = {
      cpu_us_per_request: round(c.gateway),
      cpu_ratio: round(f.gatewayCpuRatio, 3),
      anonymous_cpu_us_per_request: round(c.anonymous),
      anonymous_cpu_ratio: round(f.anonymousCpuRatio, 3),
      anonymous_redis_commands_per_request: round(g.redisCommandsPerRequest.anonymous, 2),
      anonymous_req_per_s: round(g.runs.anonymous.requestsPerSecond, 0),
      anonymous_p99_ms: g.runs.anonymous.p99,
      throughput_ratio: round(f.throughputRatio, 3),
      p99_ratio: round(f.p99Ratio, 3),
      catalog_cpu_us_per_request: round(c.catalogBehindGateway),
      catalog_cpu_ratio: round(f.behindGatewayCpuRatio, 3),
      catalog_paced_cpu_us_per_request: round(c.catalogPaced),
      catalog_paced_cpu_ratio: round(f.behindPacedCpuRatio, 3),
      identity_cpu_us_per_request: round(c.identityBehindGateway),
      redis_cpu_us_per_request: round(c.redisBehindGateway),
      redis_commands_per_request: round(g.redisCommandsPerRequest.gateway, 2),
      ...speed(g.runs.gateway),
    };
    out.identity = {
      cpu_us_per_request: round(c.identityDirect),
      redis_cpu_us_per_request: round(c.redisBehindIdentity),
      redis_commands_per_request: round(g.redisCommandsPerRequest.identity, 2),
      ...speed(g.runs.identity),
    };
  }

  const i = measured.intake;
  if (i) {
    const drain = (run) => ({
      deliveries_per_s: round(run.perSecond, 0),
      cpu_us_per_delivery: round(run.cpuPerDelivery, 0),
      redis_cpu_us_per_delivery: round(run.redisCpuPerDelivery, 0),
      sink_cpu_us_per_delivery: round(run.sinkCpuPerDelivery, 0),
      redis_commands_per_delivery: round(run.redisCommandsPerDelivery, 2),
      delivered: run.delivered,
      jobs: run.jobs,
      failed: run.failed,
      emails: run.emails,
      seconds: round(run.seconds, 2),
    });
    out.intake = {
      one: drain(i.one),
      two: drain(i.two),
      two_to_one_ratio: round(i.two.perSecond / i.one.perSecond, 3),
      // The judged figures are the one-process drain's.
      cpu_us_per_delivery: round(i.one.cpuPerDelivery, 0),
      redis_commands_per_delivery: round(i.one.redisCommandsPerDelivery, 2),
      cpu_ratio_to_reference: round(i.one.cpuPerDelivery / (i.one.reference?.cpuPerDelivery ?? Number.NaN), 3),
    };
    const ref = i.one.reference;
    if (ref) {
      out.reference = {
        ...out.reference,
        worker: {
          cpu_us_per_delivery: round(ref.cpuPerDelivery, 0),
          deliveries_per_s: round(ref.perSecond, 0),
          redis_commands_per_delivery: round(ref.redisCommandsPerDelivery, 2),
          delivered: ref.delivered,
          failed: ref.failed,
          emails: ref.emails,
        },
      };
    }
  }

  const u = measured.uploads;
  if (u) {
    out.slow_uploads = {
      reads_before: u.baseline.length,
      p99_before_ms: round(u.p99Before),
      reads_during: u.during.length,
      p99_during_ms: round(u.p99During),
      slowest_during_ms: round(u.slowestDuring),
      not_200: u.unanswered,
      uploads_by_status: Object.fromEntries(u.tally),
    };
  }

  out.rss_mb = {};
  for (const name of new Set([...rss.ready.keys(), ...rss.idle.keys(), ...rss.maxima.keys()])) {
    const value = (map) => round((map.get(name) ?? Number.NaN) / MB);
    out.rss_mb[keyOf(name)] = { ready: value(rss.ready), idle: value(rss.idle), load: value(rss.maxima) };
  }
  out.modules = Object.fromEntries(Object.entries(modules).map(([name, m]) => [keyOf(name), m.modules]));
  out.modules_by_package = Object.fromEntries(Object.entries(modules).map(([name, m]) => [keyOf(name), m.byPackage]));
  out.judged = judged.map((r) => ({ metric: r.metric, measured: r.measured, target: r.target, result: r.verdict }));
  out.misses = judged.filter((r) => r.verdict.startsWith('MISS')).length;
  return out;
}

export function writeResults(file, results) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}
