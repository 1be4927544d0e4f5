import {
  EnvProtocolError,
  envDescriptionSchema,
  protocolErrorSchema,
  protocolIssue,
  type EnvDescription,
  type ProtocolEnvironment,
  type ResetRequest,
  type ResetResponse,
  type StepRequest,
  type StepResponse,
} from '@starpo/envs';

export interface HttpEnvOptions {
  /** Each call gives up after this long: a hung environment cannot hang the run. */
  timeoutMs: number;
  /** Further tries of a call that may be repeated safely (describe, reset; a step only when it never arrived). */
  retries: number;
}

/** The request never reached the environment (nothing listened): safe to send again, even a step. */
const NOT_DELIVERED = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

class CallFailed extends EnvProtocolError {
  constructor(
    message: string,
    readonly delivered: boolean,
  ) {
    super(message);
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An environment served over HTTP (docs/environments.md): each call is one JSON request with a
 * timeout, retried a bounded number of times when repeating it is safe. Answers are returned as
 * sent; ProtocolEpisode checks them against the protocol's schemas.
 */
export class HttpEnvironment implements ProtocolEnvironment {
  private readonly base: string;

  constructor(
    url: string,
    private readonly opts: HttpEnvOptions,
  ) {
    this.base = url.replace(/\/+$/, '');
  }

  async describe(): Promise<EnvDescription> {
    const answer = await this.call('GET', '/describe', undefined, true);
    const r = envDescriptionSchema.safeParse(answer);
    if (!r.success) throw new EnvProtocolError(protocolIssue(`${this.base}: malformed describe answer`, r.error));
    return r.data;
  }

  reset(req: ResetRequest): Promise<ResetResponse> {
    return this.call('POST', '/reset', req, true) as Promise<ResetResponse>;
  }

  step(req: StepRequest): Promise<StepResponse> {
    return this.call('POST', '/step', req, false) as Promise<StepResponse>;
  }

  async close(episode: string): Promise<void> {
    await this.call('POST', '/close', { episode }, false, 0);
  }

  private async call(method: string, path: string, body: unknown, idempotent: boolean, retries = this.opts.retries): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(method, path, body);
      } catch (e) {
        const failed = e instanceof CallFailed ? e : new CallFailed(String(e), true);
        if (attempt >= retries || (failed.delivered && !idempotent)) throw new EnvProtocolError(failed.message);
        await pause(Math.min(2000, 100 * 2 ** attempt));
      }
    }
  }

  private async once(method: string, path: string, body: unknown): Promise<unknown> {
    const what = `${method} ${this.base}${path}`;
    let res: Response;
    try {
      res = await fetch(this.base + path, {
        method,
        headers: body === undefined ? undefined : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
        redirect: 'error',
      });
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      if (err.name === 'TimeoutError') throw new CallFailed(`${what}: no answer within ${this.opts.timeoutMs} ms`, true);
      const code = err.cause?.code;
      throw new CallFailed(`${what}: ${code ?? err.message}`, !code || !NOT_DELIVERED.has(code));
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      const err = e as Error;
      throw new CallFailed(`${what}: ${err.name === 'TimeoutError' ? `no answer within ${this.opts.timeoutMs} ms` : err.message}`, true);
    }
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      throw new CallFailed(`${what}: answered ${res.status} with a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}`, true);
    }
    if (!res.ok) {
      const reported = protocolErrorSchema.safeParse(json);
      throw new CallFailed(`${what}: answered ${res.status}: ${reported.success ? reported.data.error.message : text.slice(0, 200)}`, true);
    }
    return json;
  }
}
