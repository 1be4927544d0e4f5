import { createEnv, parseReply, type Rng } from '@starpo/envs';
import type { RunConfig } from '@starpo/contracts';
import { TeacherResponder } from '../pretrain/teacher.js';
import type { SftExample } from '../pretrain/sft.js';
import type { RolloutSettings } from '../rollout/rollout.js';
import type { Trajectory } from '../rollout/types.js';
import type { TextTokenizer } from '../tokenizer/types.js';

export interface DistillBatch {
  examples: SftExample[];
  /** Share of the labelled turns whose first executed action was the teacher's first move. */
  agreement: number;
}

/**
 * On-policy solver distillation (DAgger's labels, Ross et al. 2011): up to `max` turns drawn from the
 * batch the policy just played, each turned into a supervised example — the exact prompt the policy saw
 * at that state, followed by the clean teacher's reply for the state (grounded think text, solver moves).
 * The learner is thus corrected on the states its own mistakes lead to, not only the teacher's.
 */
export function labelVisitedStates(
  trajs: Trajectory[],
  env: { name: string; config: Record<string, unknown> },
  settings: RolloutSettings,
  tokenizer: TextTokenizer,
  rng: Rng,
  max = Infinity,
): DistillBatch {
  const candidates = trajs.flatMap((t) => t.turns.map((_, k) => [t, k] as const));
  const picked = max >= candidates.length ? candidates : rng.shuffle(candidates).slice(0, max);
  const teacher = new TeacherResponder({ maxActionsPerTurn: settings.maxActionsPerTurn, randomActionShare: 0 });
  const prefill = settings.enableThink ? '<think>' : '<answer>';
  const world = createEnv(env.name, env.config);
  // once, so an environment that learns its actions from reset (Countdown's free-text equation) knows them
  world.reset(picked[0]?.[0].seed ?? 0);
  let agree = 0;
  const examples = picked.map(([t, k]) => {
    const turn = t.turns[k]!;
    world.restore(turn.snapshot as never);
    const actionsLeft = settings.maxActionsPerTraj - t.turns.slice(0, k).reduce((a, x) => a + x.executed.length, 0);
    // the teacher's moves are deterministic at random share 0: the rng is only passed through
    const text = prefill + teacher.replyText({ env: world, actionsLeft }, rng);
    const parsed = parseReply(text, {
      actions: world.actions,
      anyAction: world.actionFormat !== undefined,
      maxActionsPerTurn: settings.maxActionsPerTurn,
      enableThink: settings.enableThink,
      actionSeparator: settings.actionSeparator,
    });
    if (parsed.validActions[0] !== undefined && parsed.validActions[0] === turn.executed[0]) agree++;
    const reply = (parsed.formatOk ? parsed.canonical : text).slice(prefill.length);
    const [from] = t.turnSpans[k]!;
    const start = t.segmentStarts.filter((s) => s <= from).at(-1) ?? 0;
    const prompt = t.ids.slice(start, from);
    const target = [...tokenizer.encode(reply), tokenizer.eosId];
    return { ids: [...prompt, ...target], lossMask: [...prompt.map(() => 0), ...target.map(() => 1)] };
  });
  return { examples, agreement: examples.length ? agree / examples.length : 0 };
}

/** A training step's share of labelled states (`algorithm.solverDistill.turns` of them). */
export function distillExamples(
  trajs: Trajectory[],
  c: RunConfig,
  settings: RolloutSettings,
  tokenizer: TextTokenizer,
  rng: Rng,
): DistillBatch {
  return labelVisitedStates(trajs, c.env, settings, tokenizer, rng, c.algorithm.solverDistill.turns);
}

/** The examples split into `parts` nearly equal consecutive shares (one per mini-batch). */
export function shares<T>(items: T[], parts: number): T[][] {
  return Array.from({ length: parts }, (_, i) =>
    items.slice(Math.floor((i * items.length) / parts), Math.floor(((i + 1) * items.length) / parts)),
  );
}
