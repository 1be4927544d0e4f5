import { parseReply, type Rng } from '@starpo/envs';
import { openEnvSource, type EnvSource, type EpisodeEnv, type RemoteEnvCall } from '../envs/source.js';
import type { TextTokenizer } from '../tokenizer/types.js';
import { buildMessages, promptIds, systemPrompt, type DialogueTurn, type PromptSettings } from './context.js';
import { trainingTokens } from './segments.js';
import type { Responder } from './responder.js';
import type { RolloutTurn, SplitName, Trajectory } from './types.js';

export interface RolloutSettings extends PromptSettings {
  maxTurns: number;
  maxActionsPerTurn: number;
  formatPenalty: number;
  /** Left-truncate the oldest turns of a prompt beyond this many tokens (the system prompt stays). */
  maxContextTokens: number;
}

export interface RolloutRequest {
  env: string;
  envConfig: Record<string, unknown>;
  /** One initial-state seed per group. */
  seeds: number[];
  groupSize: number;
  split: SplitName;
  settings: RolloutSettings;
  /** The environment is served over HTTP at this address (run config `env.remote`). */
  remote?: RemoteEnvCall;
}

interface Slot {
  env: EpisodeEnv;
  group: number;
  indexInGroup: number;
  seed: number;
  system: string;
  turns: RolloutTurn[];
  dialogue: DialogueTurn[];
  /** The ids each turn was sampled from. */
  prompts: number[][];
  actionsLeft: number;
  done: boolean;
  warning: string;
  /** Why the environment failed this episode (onError fail-episode). */
  envError?: string;
}

const NO_VALID_ACTION = 'No valid action provided previously. Environment state remains the same. Please try again.\n';

/**
 * StarPO's rollout phase: `seeds.length × groupSize` environments (a group shares its seed), up to
 * `maxTurns` turns each; finished environments are not prompted again. Each reply is parsed with
 * the shared parser, its valid actions are executed (within the trajectory cap) and the format
 * penalty applied. Returns each trajectory with its canonical dialogue re-tokenised for training.
 */
export async function rollout(
  req: RolloutRequest,
  responder: Responder,
  tokenizer: TextTokenizer,
  rng: Rng,
  onTurn?: (turn: number, active: number) => void,
): Promise<Trajectory[]> {
  const source = await openEnvSource(req.env, req.envConfig, req.remote);
  const s = capped(req.settings, source.limits);
  const prefill = s.enableThink ? '<think>' : '<answer>';
  const slots: Slot[] = [];
  req.seeds.forEach((seed, group) => {
    for (let i = 0; i < req.groupSize; i++) {
      slots.push({
        env: source.create(),
        group,
        indexInGroup: i,
        seed,
        system: '',
        turns: [],
        dialogue: [],
        prompts: [],
        actionsLeft: s.maxActionsPerTraj,
        done: false,
        warning: '',
      });
    }
  });
  // the group shares the start (seed), each member draws its own chance events (stream i); a reset that
  // still fails after its retries fails the rollout, whatever onError says: there is no episode to count
  await source.all(slots.map((x) => () => x.env.reset(x.seed, x.indexInGroup)));
  for (const x of slots) x.system = systemPrompt(source, x.env, s);

  try {
    for (let turn = 1; turn <= s.maxTurns; turn++) {
      const active = slots.filter((x) => !x.done);
      if (active.length === 0) break;
      onTurn?.(turn, active.length);
      const prompts = active.map((x) => fitPrompt(tokenizer, x, turn, s));
      const replies = await responder.respond(
        active.map((x, i) => ({ promptIds: prompts[i]!, env: x.env, turn, actionsLeft: x.actionsLeft })),
        rng,
      );
      await source.all(
        active.map((x, i) => async () => {
          const reply = replies[i]!;
          const observation = x.env.render();
          const snapshot = x.env.snapshot();
          const rawReply = prefill + reply.text;
          const parsed = parseReply(rawReply, {
            actions: x.env.actions,
            anyAction: x.env.actionFormat !== undefined,
            maxActionsPerTurn: s.maxActionsPerTurn,
            enableThink: s.enableThink,
            actionSeparator: s.actionSeparator,
          });
          const executed: string[] = [];
          const actionRewards: number[] = [];
          let envReward = 0;
          let effective = 0;
          let done = false;
          for (const action of parsed.validActions) {
            if (executed.length >= x.actionsLeft) break;
            let r;
            try {
              r = await x.env.step(action);
            } catch (e) {
              if (!source.failEpisode) throw e;
              // the episode ends here, a failure; the run goes on
              x.envError = e instanceof Error ? e.message : String(e);
              done = true;
              break;
            }
            executed.push(action);
            actionRewards.push(r.reward);
            envReward += r.reward;
            if (r.actionEffective) effective++;
            if (r.done) {
              done = true;
              break;
            }
          }
          const penalty = parsed.penalized ? s.formatPenalty : 0;
          const mean = (xs?: number[]) => (xs && xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
          x.turns.push({
            index: turn - 1,
            observation,
            snapshot,
            rawReply,
            parsed,
            executed,
            effectiveCount: effective,
            envReward,
            actionRewards,
            penalty,
            done,
            promptTokens: prompts[i]!.length,
            responseTokens: reply.tokenCount,
            meanLogProb: mean(reply.logProbs),
            meanEntropy: mean(reply.entropies),
          });
          x.prompts.push(prompts[i]!);
          x.dialogue.push({
            observation,
            actionsLeft: x.actionsLeft,
            reply: parsed.formatOk ? parsed.canonical : rawReply,
            reward: envReward + penalty,
            warning: x.warning,
          });
          x.actionsLeft -= executed.length;
          x.warning = parsed.validActions.length === 0 ? NO_VALID_ACTION : '';
          x.done = done || x.env.done || x.actionsLeft <= 0;
        }),
      );
    }
  } finally {
    responder.end?.();
    for (const x of slots) x.env.close?.();
  }

  return slots.map((x) => finish(x, req, tokenizer, prefill));
}

/** The run's rollout limits within the environment's own. */
function capped(s: RolloutSettings, limits: EnvSource['limits']): RolloutSettings {
  if (!limits) return s;
  return {
    ...s,
    maxTurns: Math.min(s.maxTurns, limits.maxTurns),
    maxActionsPerTurn: Math.min(s.maxActionsPerTurn, limits.maxActionsPerTurn),
    maxActionsPerTraj: Math.min(s.maxActionsPerTraj, limits.maxActionsPerTraj),
  };
}

/** The next prompt's ids, dropping the oldest turns while it is longer than maxContextTokens. */
function fitPrompt(tokenizer: TextTokenizer, x: Slot, turn: number, s: RolloutSettings): number[] {
  const next = { turn, observation: x.env.render(), actionsLeft: x.actionsLeft, warning: x.warning };
  let history = x.dialogue;
  for (;;) {
    const ids = promptIds(tokenizer, buildMessages(x.system, history, s, next), s.enableThink);
    if (ids.length <= s.maxContextTokens || history.length === 0) return ids;
    history = history.slice(1);
  }
}

function finish(x: Slot, req: RolloutRequest, tokenizer: TextTokenizer, prefill: string): Trajectory {
  // The training sequence ends with the last reply: the final state and reward message are dropped.
  const { ids, lossMask, segmentStarts, turnSpans } = trainingTokens(
    tokenizer,
    x.prompts,
    x.dialogue.map((d) => d.reply),
    prefill,
  );
  const envReward = x.turns.reduce((a, t) => a + t.envReward, 0);
  const penalty = x.turns.reduce((a, t) => a + t.penalty, 0);
  const totalReward = envReward + penalty;
  const scores = new Array<number>(ids.length).fill(0);
  const last = lossMask.lastIndexOf(1);
  if (last >= 0) scores[last] = totalReward;
  return {
    split: req.split,
    group: x.group,
    indexInGroup: x.indexInGroup,
    seed: x.seed,
    env: req.env,
    turns: x.turns,
    finalSnapshot: x.env.snapshot(),
    success: x.env.success && !x.envError,
    ...(x.envError ? { envError: x.envError } : {}),
    envReward,
    penalty,
    totalReward,
    numActions: x.turns.reduce((a, t) => a + t.executed.length, 0),
    ids,
    lossMask,
    segmentStarts,
    turnSpans,
    scores,
    turnRewards: x.turns.map((t) => t.envReward + t.penalty),
  };
}
