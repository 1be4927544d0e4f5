import {
  applyDecorators,
  createParamDecorator,
  HttpCode,
  RequestMapping,
  RequestMethod,
  SetMetadata,
  type ExecutionContext,
} from '@nestjs/common';
import type { RouteContract } from '@starpo/contracts';
import type { z } from 'zod';
import { parseInput } from './validation.js';

const ROUTE_KEY = 'starpo:route';

/**
 * Mounts a handler from its contract (packages/contracts/src/routes.ts): method, path and success
 * status; the AuthGuard reads the role and `@Valid` the request schemas from the same object.
 */
export const Route = (r: RouteContract) =>
  applyDecorators(RequestMapping({ path: r.path, method: RequestMethod[r.method] }), HttpCode(r.status), SetMetadata(ROUTE_KEY, r));

/** The contract a handler was mounted from (undefined: mounted without one, which a test forbids). */
export const routeOf = (handler: object): RouteContract | undefined => Reflect.getMetadata(ROUTE_KEY, handler) as RouteContract | undefined;

/** A request part as the route's contract parses it (coerced, defaults filled). */
export type Parsed<R extends RouteContract, P extends 'body' | 'query'> = R[P] extends z.ZodType ? z.output<R[P]> : never;

/** The request's body or query parsed by the handler's contract; a failure is a 400 naming each wrong field. */
export const Valid = createParamDecorator((part: 'body' | 'query', ctx: ExecutionContext): unknown => {
  const schema = routeOf(ctx.getHandler())?.[part];
  if (!schema) throw new Error(`@Valid('${part}') on a route whose contract declares no ${part}`);
  const req = ctx.switchToHttp().getRequest<Record<'body' | 'query', unknown>>();
  return parseInput(schema, req[part], part === 'query' ? 'query' : 'request');
});
