import { describe, expect, it } from 'vitest';
import {
  ACCEPTANCE_STATES,
  ACCEPTANCE_STEPS,
  Acceptance,
  AcceptanceStepRefused,
  ClaimAbandonedError,
  Intake,
  acceptanceOfStored,
  intakeWhenStored,
  mayTake,
  type AcceptanceState,
  type AcceptanceStepName,
  type Mode,
} from './acceptance.js';

const { begun, claimed, stored, queued, abandoned } = Acceptance;
const MODES: Mode[] = ['live', 'sandbox'];

/** Every transition the protocol allows, written out here so that a change to the table shows in this list. */
const ALLOWED: [AcceptanceStepName, AcceptanceState, Mode[], AcceptanceState | null][] = [
  ['claim', begun, MODES, claimed],
  ['claim', claimed, MODES, claimed],
  ['claim', abandoned, MODES, claimed],
  ['store', begun, MODES, stored],
  ['store', claimed, MODES, stored],
  ['store', stored, MODES, stored],
  ['store', queued, MODES, stored],
  ['queue', stored, ['live'], queued],
  ['abandon', claimed, MODES, abandoned],
  ['forget', begun, MODES, null],
  ['forget', claimed, MODES, null],
  ['forget', abandoned, MODES, null],
];

describe('the acceptance steps', () => {
  it.each(ALLOWED.flatMap(([step, from, modes, to]) => modes.map((mode) => [step, from, mode, to] as const)))(
    '%s takes a %s request (%s) to %s',
    (step, from, mode, to) => {
      expect(mayTake(step, from, mode)).toBe(true);
      expect(ACCEPTANCE_STEPS[step].to).toBe(to);
    },
  );

  it('refuses to store a request whose claim the reconciler gave up, since its unit was refunded', () => {
    expect(mayTake('store', abandoned, 'live')).toBe(false);
    expect(mayTake('store', abandoned, 'sandbox')).toBe(false);
  });

  it('refuses to claim an id that is stored or queued: the record stays as it is', () => {
    expect(mayTake('claim', stored, 'live')).toBe(false);
    expect(mayTake('claim', queued, 'live')).toBe(false);
  });

  it('queues only a stored live request: never a sandbox one, nor one queued or not stored', () => {
    expect(mayTake('queue', stored, 'sandbox')).toBe(false);
    for (const state of [begun, claimed, queued, abandoned]) expect(mayTake('queue', state, 'live'), state).toBe(false);
  });

  it('abandons only a claim: an id without one, a stored request and a claim given up already are left alone', () => {
    for (const state of [begun, stored, queued, abandoned]) expect(mayTake('abandon', state, 'live'), state).toBe(false);
  });

  it('never forgets a stored request', () => {
    expect(mayTake('forget', stored, 'live')).toBe(false);
    expect(mayTake('forget', queued, 'live')).toBe(false);
  });

  it('allows nothing beyond the transitions listed above', () => {
    const allowed = new Set(ALLOWED.flatMap(([step, from, modes]) => modes.map((mode) => `${step} ${from} ${mode}`)));
    const steps = Object.keys(ACCEPTANCE_STEPS) as AcceptanceStepName[];

    const taken = steps.flatMap((step) =>
      ACCEPTANCE_STATES.flatMap((from) => MODES.filter((mode) => mayTake(step, from, mode)).map((mode) => `${step} ${from} ${mode}`)),
    );

    expect(new Set(taken)).toEqual(allowed);
  });
});

describe('the intake field of a stored record', () => {
  it('says pending for a live request and none for a sandbox one when stored', () => {
    expect(intakeWhenStored('live')).toBe(Intake.pending);
    expect(intakeWhenStored('sandbox')).toBe(Intake.none);
  });

  it.each([
    [Intake.pending, stored, 'live'],
    [Intake.none, stored, 'sandbox'],
    [Intake.queued, queued, 'live'],
  ] as const)('%s is a %s %s request', (intake, state, mode) => {
    expect(acceptanceOfStored(intake)).toEqual({ state, mode });
  });
});

describe('a refused step', () => {
  it('names the id, the step and the state it met', () => {
    const err = new AcceptanceStepRefused('req_0123456789abcdef', 'queue', queued);

    expect(err).toMatchObject({ id: 'req_0123456789abcdef', step: 'queue', state: queued });
    expect(err.message).toBe('req_0123456789abcdef: queue is not allowed once queued');
  });

  it('is a ClaimAbandonedError when a POST stores after its claim was given up', () => {
    const err = new ClaimAbandonedError('req_0123456789abcdef');

    expect(err).toBeInstanceOf(AcceptanceStepRefused);
    expect(err).toMatchObject({ name: 'ClaimAbandonedError', step: 'store', state: abandoned });
  });
});
