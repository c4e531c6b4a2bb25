import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FeedReply {
  status: number;
  body: string;
}

export interface FeedServer {
  /** The feed's URL on loopback. */
  url: string;
  /** What the next request gets; change it to make the feed fail or recover. */
  reply: FeedReply;
  /** Requests answered so far. */
  readonly hits: number;
  close(): Promise<void>;
}

/** A real HTTP JSON feed on loopback whose answer a test scripts, for data sources. */
export async function startFeedServer(path: string, reply: FeedReply): Promise<FeedServer> {
  let hits = 0;
  const feed = {
    url: '',
    reply,
    get hits() {
      return hits;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = createServer((_req, res) => {
    hits++;
    res.writeHead(feed.reply.status, { 'content-type': 'application/json' }).end(feed.reply.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  feed.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return feed;
}
