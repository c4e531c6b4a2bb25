// In flight: how many requests one caller may have open at once. The
// per-minute limit counts requests as they start, so a caller whose requests
// never finish (a body sent one byte every few seconds, an answer it does not
// read) could otherwise hold any number of them open, and with them the
// gateway's memory and the services' connection pools. A known principal is
// counted by itself, everyone else by its address (the per-address limits'
// key). Past the cap the answer is 429 with Retry-After at once; a slot is
// given back when the answer finishes or the connection closes, whichever
// comes first. Counted in this process: each gateway replica allows the cap.
import { appError, declareResponseFields, type Metrics } from '@msa/service-kit';
import type { Response } from 'express';
import type { Handoff, Next, Stage, View } from './exchange.js';

/** What in-flight reads of the exchange and writes for the stages after it. */
export const IN_FLIGHT_HANDOFF = { reads: ['principal', 'refusal'], writes: [] } as const satisfies Handoff;

export interface InFlightOptions {
  /** Requests one principal may have open at once. */
  perPrincipal: number;
  /** Requests one address may have open at once without credentials. */
  perAddress: number;
  rejections: ReturnType<Metrics['counter']>;
}

/** Requests one caller may have open at once unless configured otherwise (IN_FLIGHT_PER_PRINCIPAL, IN_FLIGHT_PER_ADDRESS). */
export const DEFAULT_IN_FLIGHT = { perPrincipal: 8, perAddress: 4 };

const HOLDS = Symbol('inFlightKey');
declareResponseFields(HOLDS);
/** A response holding a slot: the caller's key until the slot is given back. */
type Holding = Response & { [HOLDS]?: string | undefined };

/** The policy name in metrics. */
const IN_FLIGHT_POLICY = 'in-flight';

export interface InFlightStage extends Stage<View<typeof IN_FLIGHT_HANDOFF>> {
  /** Requests open under a caller's key (`p:<id>` or `ip:<address key>`), for tests. */
  openFor(key: string): number;
}

export function createInFlightStage({ perPrincipal, perAddress, rejections }: InFlightOptions): InFlightStage {
  const open = new Map<string, number>();
  function releaseHeld(this: Holding) {
    const key = this[HOLDS];
    if (key === undefined) return;
    this[HOLDS] = undefined;
    release(key);
  }

  function release(key: string): void {
    const left = (open.get(key) ?? 1) - 1;
    if (left > 0) open.set(key, left);
    else open.delete(key);
  }

  function refuse(limit: number, byPrincipal: boolean): never {
    rejections.inc({ policy: IN_FLIGHT_POLICY });
    throw appError(
      'rate_limited',
      `More than ${limit} requests at once ${byPrincipal ? 'with these credentials' : 'from this address without credentials'}.`,
      {
        headers: { 'Retry-After': '1' },
        hint: 'Wait for an answer before sending more requests, and send each request body without pausing.',
      },
    );
  }

  const stage: InFlightStage = Object.assign(
    (x: View<typeof IN_FLIGHT_HANDOFF>, next: Next<View<typeof IN_FLIGHT_HANDOFF>>) => {
      // A request whose credentials could not be checked counts as anonymous, as in admit.
      const principal = x.refusal === null ? x.principal : null;
      const key = principal ? `p:${principal.id}` : `ip:${x.addressKey}`;
      const limit = principal ? perPrincipal : perAddress;
      const count = open.get(key) ?? 0;
      if (count >= limit) refuse(limit, principal !== null);
      open.set(key, count + 1);
      // One pair of listeners for every request; the key on the response says what to give back, once.
      (x.res as Holding)[HOLDS] = key;
      x.res.on('finish', releaseHeld).on('close', releaseHeld);
      return next(x);
    },
    { openFor: (key: string) => open.get(key) ?? 0 },
  );
  return stage;
}
