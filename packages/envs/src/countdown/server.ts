import { z } from '../zod.js';
import { Rng } from '../rng.js';
import {
  ENV_PROTOCOL_VERSION,
  type EnvDescription,
  type ProtocolEnvironment,
  type ResetRequest,
  type ResetResponse,
  type StepRequest,
  type StepResponse,
} from '../protocol/schema.js';
import { readEquation, sameNumbers, solveCountdown } from './equation.js';

export const countdownConfigSchema = z
  .object({
    count: z.number().int().min(2).max(4).default(3).describe('How many numbers an instance gives'),
    maxNumber: z.number().int().min(2).max(100).default(10).describe('Numbers are drawn from 1 to this'),
    instance: z
      .object({ numbers: z.array(z.number().int().min(0).max(1000)).min(2).max(4), target: z.number().int() })
      .strict()
      .nullable()
      .default(null)
      .describe('One fixed instance for every seed, instead of drawn ones'),
    formatReward: z.number().min(0).max(1).default(0.1).describe('Reward for a well-formed equation that misses (RAGEN: 0.1)'),
  })
  .strict();
export type CountdownConfig = z.output<typeof countdownConfigSchema>;

interface Episode {
  numbers: number[];
  target: number;
  answer: string | null;
  correct: boolean;
}

export const COUNTDOWN_INSTRUCTIONS =
  'You are playing Countdown. Using each given number exactly once, with + - * / and parentheses, ' +
  'write an equation whose value is the target. Answer with the left side only, e.g. <answer> (3 + 5) * 2 </answer>.';

/** An instance whose target some equation reaches: numbers drawn from the seed, combined at random. */
export function drawCountdown(seed: number, c: CountdownConfig): { numbers: number[]; target: number } {
  if (c.instance) return { numbers: [...c.instance.numbers], target: c.instance.target };
  const rng = new Rng(seed);
  for (;;) {
    const numbers = Array.from({ length: c.count }, () => rng.int(1, c.maxNumber));
    let value = numbers[0]!;
    for (const n of numbers.slice(1)) value = rng.choice([value + n, value * n, Math.abs(value - n)]);
    if (value > 0 && solveCountdown(numbers, value)) return { numbers, target: value };
  }
}

function render(e: Episode): string {
  const lines = [`Numbers: [${e.numbers.join(', ')}]`, `Target: ${e.target}`];
  if (e.answer !== null) lines.push(`Answer: ${e.answer} (${e.correct ? 'correct' : 'wrong'})`);
  return lines.join('\n');
}

/**
 * Countdown (RAGEN's): reach the target from the given numbers with + − × ÷. One turn, one action:
 * the equation. Served in this process through the environment protocol, as any language would serve it.
 */
export class CountdownServer implements ProtocolEnvironment {
  private readonly episodes = new Map<string, Episode & { config: CountdownConfig }>();
  private next = 0;

  describe(): EnvDescription {
    return {
      protocol: ENV_PROTOCOL_VERSION,
      name: 'countdown',
      title: 'Countdown',
      description: 'Reach the target number from the given numbers with + − × ÷, each number used once. Reward 1 for a correct equation.',
      instructions: COUNTDOWN_INSTRUCTIONS,
      configSchema: z.toJSONSchema(countdownConfigSchema, { io: 'input' }) as Record<string, unknown>,
      limits: { maxTurns: 1, maxActionsPerTurn: 1, maxActionsPerTraj: 1 },
      legend: null,
      claims: false,
    };
  }

  reset(req: ResetRequest): ResetResponse {
    const config = countdownConfigSchema.parse(req.config ?? {});
    const episode = { ...drawCountdown(req.seed, config), answer: null, correct: false, config };
    const id = String(++this.next);
    this.episodes.set(id, episode);
    return {
      episode: id,
      observation: render(episode),
      snapshot: this.snapshot(episode),
      actions: null,
      actionFormat: 'an equation over the numbers, e.g. (3 + 5) * 2',
    };
  }

  step(req: StepRequest): StepResponse {
    const e = this.episodes.get(req.episode);
    if (!e) throw new Error(`unknown episode "${req.episode}"`);
    const eq = readEquation(req.action);
    e.answer = req.action.trim();
    e.correct = !!eq && sameNumbers(eq.numbers, e.numbers) && Math.abs(eq.value - e.target) < 1e-9;
    this.episodes.delete(req.episode);
    return {
      observation: render(e),
      reward: e.correct ? 1 : eq ? e.config.formatReward : 0,
      done: true,
      success: e.correct,
      snapshot: this.snapshot(e),
      actionValid: !!eq,
      actionEffective: true,
      info: { value: eq?.value ?? null },
    };
  }

  close(episode: string): void {
    this.episodes.delete(episode);
  }

  private snapshot(e: Episode): ResetResponse['snapshot'] {
    return { text: render(e), state: { numbers: e.numbers, target: e.target, answer: e.answer, correct: e.correct } };
  }
}
