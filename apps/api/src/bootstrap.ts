import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import cookieParser from 'cookie-parser';
import helmet from 'helmet';
import { createRequire } from 'node:module';
import path from 'node:path';
import express from 'express';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { IoAdapter } from '@nestjs/platform-socket.io';
import type { ServerOptions } from 'socket.io';
import { AppModule } from './app.module.js';
import { answerClientErrorsInShape } from './client-errors.js';
import { ErrorsFilter } from './errors.filter.js';
import { DatabaseReachability } from './database-reachable.js';
import { PROBE } from './di-tokens.js';
import { originRefusal, parseOrigins } from './security/origin.js';
import { previewRateLimit } from './security/preview-rate-limit.js';
import { resolveApiSettings, type ApiSettingsInput } from './settings.js';
import { QuietStartLogger } from './quiet-logger.js';

export const BODY_LIMIT = '1mb';

/** Build the Nest application (not yet listening): used by main.ts and the tests. */
export async function createApp(given: ApiSettingsInput, opts: { logger?: boolean } = {}): Promise<NestExpressApplication> {
  const settings = resolveApiSettings(given);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(settings), {
    logger: opts.logger === false ? false : new QuietStartLogger({ logLevels: ['log', 'warn', 'error'] }),
    bodyParser: false,
    abortOnError: false,
  });
  app.use(previewRateLimit());
  app.use(helmet());
  app.use(cookieParser());
  app.use('/api/docs/assets', express.static(swaggerUiDir(), { index: false, maxAge: '1d' }));
  app.useBodyParser('json', { limit: BODY_LIMIT });
  const origins = parseOrigins(settings.webOrigin);
  app.enableCors({ origin: (origin, cb) => cb(null, origin !== undefined && origins.includes(origin)), credentials: true });
  app.useWebSocketAdapter(new CorsIoAdapter(app, origins));
  app.useGlobalFilters(new ErrorsFilter(new DatabaseReachability(app.get(PROBE))));
  app.enableShutdownHooks();
  app.disable('x-powered-by');
  answerClientErrorsInShape(app.getHttpServer());
  return app;
}

/**
 * socket.io with the same rules as REST: CORS for the dashboard's origin with credentials, and
 * the CSRF origin rule on the handshake (CORS does not apply to WebSocket upgrades).
 */
class CorsIoAdapter extends IoAdapter {
  constructor(
    app: NestExpressApplication,
    private readonly origins: string[],
  ) {
    super(app);
  }

  override createIOServer(port: number, options?: ServerOptions): ReturnType<IoAdapter['createIOServer']> {
    return super.createIOServer(port, {
      ...options,
      cors: { origin: this.origins, credentials: true },
      allowRequest: (req, done) => {
        const refusal = originRefusal(req, this.origins);
        done(refusal, refusal === null);
      },
    } as ServerOptions);
  }
}

function swaggerUiDir(): string {
  return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}
