import { ConsoleLogger } from '@nestjs/common';

/** Nest's start-up chatter: a line per module, controller and route (about 80), none of it actionable. */
const STARTUP_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
  'WebSocketsController',
]);

/**
 * Nest's console logger without its start-up `log` lines; warnings and errors of every context, and
 * the `log` lines of ours (sweeper, gateway, events), still print. `api listening on …` says it started.
 */
export class QuietStartLogger extends ConsoleLogger {
  override log(message: unknown, ...rest: unknown[]): void {
    const context = rest.at(-1); // Nest passes the context last
    if (typeof context === 'string' && STARTUP_CONTEXTS.has(context)) return;
    super.log(message, ...(rest as [string?]));
  }
}
