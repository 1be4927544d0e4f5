import type { z } from '../zod.js';
import type { StepResult, TextSnapshot } from '../types.js';
import {
  protocolIssue,
  resetResponseSchema,
  stepResponseSchema,
  type EnvDescription,
  type ProtocolEnvironment,
  type ResetResponse,
  type StepResponse,
} from './schema.js';

/** An environment broke the protocol or failed: what it was asked, and what went wrong. */
export class EnvProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvProtocolError';
  }
}

/** `value`'s result handed to `then`, at once when it is not a promise (an in-process environment stays synchronous). */
function andThen<T, U>(value: T | Promise<T>, then: (v: T) => U): U | Promise<U> {
  return value instanceof Promise ? value.then(then) : then(value);
}

function checked<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new EnvProtocolError(protocolIssue(what, r.error));
  return r.data;
}

/**
 * One episode of a protocol environment, with the interface the rollout drives (`Env`'s, except that
 * reset and step return promises when the environment answers over the network). It keeps the last
 * observation and snapshot, and checks every answer against the protocol's schemas.
 */
export class ProtocolEpisode {
  readonly name: string;
  private episode: string | null = null;
  private observation = '';
  private snap: TextSnapshot;
  private allowed: readonly string[] = [];
  private format: string | undefined;

  constructor(
    private readonly server: ProtocolEnvironment,
    readonly description: EnvDescription,
    private readonly config: Record<string, unknown> = {},
  ) {
    this.name = description.name;
    this.snap = { env: 'text', name: this.name, text: '', legend: description.legend, state: null, done: false, success: false };
  }

  get actions(): readonly string[] {
    return this.allowed;
  }
  get actionFormat(): string | undefined {
    return this.format;
  }
  get done(): boolean {
    return this.snap.done;
  }
  get success(): boolean {
    return this.snap.success;
  }

  reset(seed: number, stream = 0): string | Promise<string> {
    this.close();
    return andThen(this.server.reset({ seed, stream, config: this.config }), (answer) => {
      const r: ResetResponse = checked(resetResponseSchema, answer, `${this.name}: malformed reset answer`);
      this.episode = r.episode;
      this.observation = r.observation;
      this.allowed = r.actions ?? [];
      this.format = r.actions === null ? (r.actionFormat ?? 'free text') : undefined;
      this.snap = { ...this.snap, text: r.snapshot.text, state: r.snapshot.state, done: false, success: false };
      return r.observation;
    });
  }

  step(action: string): StepResult | Promise<StepResult> {
    if (this.done)
      return { observation: this.observation, reward: 0, done: true, success: this.success, actionValid: true, actionEffective: false };
    if (this.episode === null) throw new EnvProtocolError(`${this.name}: step before reset`);
    return andThen(this.server.step({ episode: this.episode, action }), (answer) => {
      const r: StepResponse = checked(stepResponseSchema, answer, `${this.name}: malformed step answer`);
      this.observation = r.observation;
      this.snap = { ...this.snap, text: r.snapshot.text, state: r.snapshot.state, done: r.done, success: r.success };
      if (r.done) this.close();
      return {
        observation: r.observation,
        reward: r.reward,
        done: r.done,
        success: r.success,
        actionValid: r.actionValid,
        actionEffective: r.actionEffective,
      };
    });
  }

  /** Tells the environment the episode is over (best effort: its answer is not awaited). */
  close(): void {
    const episode = this.episode;
    this.episode = null;
    if (episode === null || !this.server.close) return;
    void Promise.resolve()
      .then(() => this.server.close!(episode))
      .catch(() => {});
  }

  /** Shows a stored turn (teachers, replays). The environment is not told: a step after it needs a reset. */
  restore(s: TextSnapshot): void {
    this.close();
    this.snap = { ...s };
    this.observation = s.text;
  }

  instructions(): string {
    return this.description.instructions;
  }
  render(): string {
    return this.observation;
  }
  snapshot(): TextSnapshot {
    return { ...this.snap };
  }
}
