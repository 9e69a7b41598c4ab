import type { INestApplicationContext } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import type { Server, ServerOptions } from 'socket.io';

/**
 * Socket.IO across processes (split roles, DESIGN §3): every server shares rooms through Redis
 * pub/sub (@socket.io/redis-adapter), so a message emitted by any process — the engine's fills and
 * market data, a worker's option delivery — reaches a client connected to any api process.
 */
export class RedisIoAdapter extends IoAdapter {
  private readonly clients: Redis[] = [];

  constructor(
    app: INestApplicationContext,
    private readonly redisUrl: string,
    private readonly prefix: string,
  ) {
    super(app);
  }

  override createIOServer(port: number, options?: ServerOptions): Server {
    const server = super.createIOServer(port, options) as Server;
    const pub = new Redis(this.redisUrl, { maxRetriesPerRequest: null });
    // The adapter publishes without awaiting: a broadcast while the connection is closed (the process
    // stopping) must not become an unhandled rejection that kills the process. Best effort: a client
    // that misses a message resubscribes and gets each topic's snapshot.
    const publish = pub.publish.bind(pub) as (channel: string | Buffer, message: string | Buffer) => Promise<number>;
    pub.publish = ((channel: string | Buffer, message: string | Buffer) => publish(channel, message).catch(() => 0)) as typeof pub.publish;
    const sub = pub.duplicate();
    this.clients.push(pub, sub);
    server.adapter(createAdapter(pub, sub, { key: `${this.prefix}socket.io` }));
    return server;
  }

  override async dispose(): Promise<void> {
    await super.dispose();
    await Promise.all(this.clients.map((c) => c.quit().catch(() => c.disconnect())));
  }
}
