import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import express from 'express';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AppModule } from './app.module';
import { AppConfig } from './infra/config/config';
import { migrate } from './infra/database/migrate';
import { AllExceptionsFilter } from './infra/http/all-exceptions.filter';
import { bodyParsers } from './infra/http/body-parsers';
import { EnvelopeInterceptor } from './infra/http/envelope.interceptor';
import { FileUploadInterceptor } from './infra/http/file-upload.interceptor';
import { NoBodyFieldsInterceptor } from './infra/http/no-body-fields.interceptor';
import { createValidationPipe } from './infra/http/validation';
import { FastLane } from './infra/http/fast-lane';
import { coalesceUpgradedWrites } from './infra/http/coalesce-writes';
import { secureEveryResponse } from './infra/http/security-headers';
import { TokenService } from './infra/auth/token.service';
import { createLogging, NestPinoLogger } from './infra/logging/logging';
import { CoinTradeController, coinTradeLaneRoutes } from './modules/coin-trade/coin-trade.controller';
import { OrderSocket } from './modules/coin-trade/order-socket';
import { SeedService } from './modules/reference/seed.service';
import { EngineHost } from './modules/engine/engine-host.service';
import { SettledReadsInterceptor } from './modules/engine/settled-reads.interceptor';
import { RedisIoAdapter } from './modules/realtime/redis-io.adapter';

/** Builds the whole exchange app: migrations, seed data, the /api plumbing, docs and the web app. */
export async function createApp(config: AppConfig): Promise<NestExpressApplication> {
  const logging = createLogging(config);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), { bodyParser: false, logger: new NestPinoLogger(logging.root) });
  app.enableShutdownHooks();
  // Split roles: sockets on every api process share rooms through Redis (pushes from the engine and workers reach them).
  if (config.engine.transport === 'redis') app.useWebSocketAdapter(new RedisIoAdapter(app, config.redisUrl, config.redisPrefix));
  app.set('trust proxy', config.trustProxy);
  app.disable('x-powered-by');
  // Security headers on every answer (Nest routes, the fast lane, static files, Socket.IO polling); HSTS over TLS only.
  secureEveryResponse(app.getHttpServer(), app.getHttpAdapter().getInstance().get('trust proxy fn'));
  if (config.wsCoalesce) coalesceUpgradedWrites(app.getHttpServer());
  // Idle keep-alive connections stay open past a balancer's idle timeout (Node's default is 5 s): a client that comes
  // back, or a pool that grows in a burst, reuses one instead of opening new ones just when the server is busiest.
  app.getHttpServer().keepAliveTimeout = config.httpKeepAliveMs;

  await migrate(app.get(DataSource));
  await app.get(SeedService).seed();

  if (config.fastLane) {
    const [place, cancel] = coinTradeLaneRoutes(app.get(CoinTradeController));
    new FastLane(app.get(TokenService), logging.http, config.bodyLimitBytes).route(place).route(cancel).attach(app.getHttpServer());
  }
  // Request ids and access lines for the API's requests (the lane's are its own, with the same logger).
  app.use((req: express.Request, res: express.Response, next: express.NextFunction) => (/^\/api(\/|$)/i.test(req.path) ? logging.http(req, res, next) : next()));
  // Orders over a plain WebSocket (`/api/coin/ws`), beside the Socket.IO channel.
  app.get(OrderSocket).attach(app.getHttpServer());
  for (const parser of bodyParsers(config.bodyLimitBytes)) app.use(parser);
  app.setGlobalPrefix('api');
  app.useGlobalPipes(createValidationPipe());
  // Every global interceptor, guard and filter is registered here, in this order. Interceptors run after
  // the routes' guards: the file routes' files are read only for a caller the guard let through.
  app.useGlobalInterceptors(new FileUploadInterceptor(config.bodyLimitBytes), new NoBodyFieldsInterceptor(), new SettledReadsInterceptor(app.get(EngineHost)), new EnvelopeInterceptor());
  app.useGlobalFilters(new AllExceptionsFilter());

  const doc = new DocumentBuilder()
    .setTitle('Kestrel Exchange API')
    .setDescription('Every answer is HTTP 200 with {type, code, message, data}; see docs/api.md for codes. Send `lang` and `Authorization` headers.')
    .setVersion('4.2.9')
    .build();
  SwaggerModule.setup('api/docs', app, () => SwaggerModule.createDocument(app, doc));

  const web = config.frontendDist ?? join(__dirname, '..', '..', 'frontend', 'dist');
  if (existsSync(web)) {
    const serveWeb = express.static(web, { index: 'index.html', maxAge: '1h' });
    // The web app never shadows the API: /api and /socket.io requests skip the file lookup.
    app.use((req: express.Request, res: express.Response, next: express.NextFunction) => (req.path.startsWith('/api/') || req.path.startsWith('/socket.io') ? next() : serveWeb(req, res, next)));
  }
  return app;
}
