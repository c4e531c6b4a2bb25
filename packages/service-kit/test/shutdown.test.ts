import { connect } from 'node:net';
import { Agent, request as httpRequest } from 'node:http';
import express from 'express';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeServer, listen, onShutdown } from '../src/index.js';
import { captureLogs, eventually, type CapturedLogs } from './support.js';

const EVENTS = ['SIGTERM', 'SIGINT', 'uncaughtException', 'unhandledRejection'] as const;
type ProcessEvent = (typeof EVENTS)[number];
type Listener = (...args: unknown[]) => void;

// Seen as a plain emitter: the typed overloads of `process` take one event kind each.
const emitter: NodeJS.EventEmitter = process;
const listenersOf = (event: ProcessEvent) => emitter.listeners(event) as Listener[];

describe('onShutdown', () => {
  let before: Map<ProcessEvent, Listener[]>;
  let logs: CapturedLogs;
  let exits: number[];
  const exit = (code: number) => {
    exits.push(code);
  };

  /** The listener onShutdown added for `event`, so a test can fire it without signalling the test runner. */
  const addedListener = (event: ProcessEvent) => {
    const added = listenersOf(event).filter((l) => !before.get(event)!.includes(l));
    expect(added).toHaveLength(1);
    return added[0]!;
  };

  beforeEach(() => {
    before = new Map(EVENTS.map((e) => [e, listenersOf(e)]));
    logs = captureLogs('info');
    exits = [];
  });

  afterEach(() => {
    for (const event of EVENTS) {
      for (const l of listenersOf(event)) {
        if (!before.get(event)!.includes(l)) emitter.removeListener(event, l);
      }
    }
  });

  it('runs the closers in order on SIGTERM, then exits 0', async () => {
    const order: string[] = [];
    onShutdown(
      logs.logger,
      [
        () => {
          order.push('server');
        },
        async () => {
          await new Promise((r) => setTimeout(r, 5));
          order.push('queue');
        },
        () => {
          order.push('redis');
        },
      ],
      { exit },
    );

    addedListener('SIGTERM')();
    await eventually(() => exits[0], 'exit');

    expect(order).toEqual(['server', 'queue', 'redis']);
    expect(exits).toEqual([0]);
    expect(logs.lines.map((l) => l.msg)).toEqual(['shutting down', 'stopped']);
    expect(logs.lines[0]).toMatchObject({ reason: 'SIGTERM' });
  });

  it('listens for SIGINT as well', async () => {
    onShutdown(logs.logger, [], { exit });

    addedListener('SIGINT')();

    await eventually(() => exits[0], 'exit');
    expect(exits).toEqual([0]);
  });

  it('exits 1 when the deadline passes before the closers finish', async () => {
    let lastCloserRan = false;
    const stop = onShutdown(
      logs.logger,
      [
        () => new Promise(() => undefined),
        () => {
          lastCloserRan = true;
        },
      ],
      { deadlineMs: 50, exit },
    );

    void stop('test');
    await eventually(() => exits[0], 'exit');

    expect(exits).toEqual([1]);
    expect(lastCloserRan).toBe(false);
    expect(logs.lines.find((l) => l.msg === 'shutdown deadline passed')).toMatchObject({ level: 'error', deadlineMs: 50 });
  });

  it('exits 1 when a closer fails, and logs the error', async () => {
    const stop = onShutdown(
      logs.logger,
      [
        () => {
          throw new Error('redis quit failed');
        },
      ],
      { exit },
    );

    await stop('test');

    expect(exits).toEqual([1]);
    const line = logs.lines.find((l) => l.msg === 'shutdown failed');
    expect((line?.err as { message: string }).message).toBe('redis quit failed');
  });

  it('runs the closers once when stopped twice', async () => {
    let runs = 0;
    const stop = onShutdown(logs.logger, [() => void runs++], { exit });

    await Promise.all([stop('SIGTERM'), stop('SIGINT')]);

    expect(runs).toBe(1);
    expect(exits).toEqual([0]);
  });

  it('logs an uncaught exception and shuts down with exit code 1', async () => {
    let closed = false;
    onShutdown(logs.logger, [() => void (closed = true)], { exit });

    addedListener('uncaughtException')(new Error('kaboom'));
    await eventually(() => exits[0], 'exit');

    expect(closed).toBe(true);
    expect(exits).toEqual([1]);
    const fatal = logs.lines.find((l) => l.msg === 'uncaught exception');
    expect(fatal).toMatchObject({ level: 'fatal' });
    expect((fatal?.err as { message: string }).message).toBe('kaboom');
  });
});

describe('closeServer', () => {
  it('lets an in-flight request finish and refuses new connections', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let entered = false;
    const app = express();
    app.get('/slow', async (_req, res) => {
      entered = true;
      await held;
      res.json({ finished: true });
    });
    const { server, url } = await listen(app, 0, '127.0.0.1');

    const inFlight = fetch(`${url}/slow`).then(async (r) => ({ status: r.status, body: await r.json() }));
    await eventually(() => (entered ? true : undefined), 'the request to reach the handler');
    let closed = false;
    const closing = closeServer(server).then(() => {
      closed = true;
    });
    const refused = await fetch(`${url}/slow`).then(
      () => 'answered',
      () => 'refused',
    );
    const closedBeforeRelease = closed;
    release();

    expect(await inFlight).toEqual({ status: 200, body: { finished: true } });
    await closing;
    expect(refused).toBe('refused');
    expect(closedBeforeRelease).toBe(false);
  });

  it('closes idle keep-alive connections instead of waiting for them', async () => {
    const app = express();
    app.get('/ping', (_req, res) => {
      res.json({ ok: true });
    });
    const { server, port } = await listen(app, 0, '127.0.0.1');
    const agent = new Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port, path: '/ping', agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
        .on('error', reject)
        .end();
    });

    await closeServer(server);

    expect(server.listening).toBe(false);
    agent.destroy();
  });

  it('cuts a connection that never sent a request once the force delay passes', async () => {
    const { server, port } = await listen(express(), 0, '127.0.0.1');
    const silent = connect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve) => silent.once('connect', () => resolve()));
    const ended = new Promise<void>((resolve) => silent.once('close', () => resolve()));

    await closeServer(server, { forceAfterMs: 200 });

    await ended;
    expect(server.listening).toBe(false);
  });

  it('resolves for a server that is not running', async () => {
    const { server } = await listen(express(), 0, '127.0.0.1');
    await closeServer(server);

    await expect(closeServer(server)).resolves.toBeUndefined();
  });
});
