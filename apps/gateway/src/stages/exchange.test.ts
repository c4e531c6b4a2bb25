import { describe, expect, it } from 'vitest';
import { buildExchange } from '../../test/build-exchange.js';
import { pipeline, type Stage } from './exchange.js';

describe('pipeline', () => {
  it('runs the stages in order, each handing on to the next', async () => {
    const seen: string[] = [];
    const stage = (name: string): Stage => (x, next) => {
      seen.push(name);
      return next(x);
    };

    await pipeline([stage('resolve'), stage('authenticate'), stage('forward')])(buildExchange());

    expect(seen).toEqual(['resolve', 'authenticate', 'forward']);
  });

  it('stops where a stage does not hand on', async () => {
    const seen: string[] = [];

    await pipeline([() => void seen.push('answers'), () => void seen.push('never')])(buildExchange());

    expect(seen).toEqual(['answers']);
  });

  it('turns a refusal thrown before any await into a rejection', async () => {
    const refusing: Stage = () => {
      throw new Error('refused');
    };

    await expect(pipeline([refusing])(buildExchange())).rejects.toThrow('refused');
  });

  it('lets a stage see how the stages after it went', async () => {
    const outcomes: string[] = [];
    const around: Stage = async (x, next) => {
      try {
        await next(x);
      } catch (err) {
        outcomes.push((err as Error).message);
        throw err;
      }
    };
    const later: Stage = async () => {
      throw new Error('wrong credentials');
    };

    await expect(pipeline([around, later])(buildExchange())).rejects.toThrow('wrong credentials');
    expect(outcomes).toEqual(['wrong credentials']);
  });
});
