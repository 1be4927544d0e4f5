import {
  FrozenLakeEnv,
  readEquation,
  solveCountdown,
  type TextSnapshot,
  describeOffset,
  lakePlan,
  solveSokoban,
  type BanditSnapshot,
  type FrozenLakeSnapshot,
  type Rng,
  type SokobanSnapshot,
} from '@starpo/envs';
import type { Reply, ReplyRequest, Responder } from '../rollout/responder.js';

export interface TeacherOptions {
  maxActionsPerTurn: number;
  /** Probability that each planned action is replaced by a random one. */
  randomActionShare: number;
}

type Pos = readonly [number, number];
const at = ([r, c]: Pos) => `(${r}, ${c})`;

/** "2 down and 1 left", "here". Rows grow downwards. */
export const relation = (from: Pos, to: Pos): string => describeOffset(from, to, 'here');

function cellsOf(rows: string[], ch: string): [number, number][] {
  const out: [number, number][] = [];
  rows.forEach((row, r) => [...row].forEach((x, c) => x === ch && out.push([r, c])));
  return out;
}

function sokobanThink(s: SokobanSnapshot, plan: string[]): string {
  const targets = cellsOf(s.fixed, 'O');
  const facts = [`Player at ${at(s.player)}.`];
  s.boxes.forEach((b, i) => {
    const name = s.boxes.length > 1 ? `Box ${i + 1}` : 'Box';
    const onTarget = s.fixed[b[0]]![b[1]] === 'O';
    facts.push(`${name} at ${at(b)}${onTarget ? ', on target' : ''}.`);
  });
  const free = targets.filter((t) => !s.boxes.some((b) => b[0] === t[0] && b[1] === t[1]));
  free.forEach((t) => facts.push(`Target at ${at(t)}.`));
  if (s.boxes.length === 1 && free.length === 1) facts.push(`Box must go ${relation(s.boxes[0]!, free[0]!)}.`);
  return `${facts.join(' ')} Plan: ${plan.join(', ') || 'none'}.`;
}

function lakeThink(s: FrozenLakeSnapshot, plan: string[]): string {
  const goal = cellsOf(s.map, 'G')[0]!;
  const holes = cellsOf(s.map, 'H').filter((h) => Math.abs(h[0] - s.player[0]) + Math.abs(h[1] - s.player[1]) === 1);
  const near = holes.length ? ` Hole ${holes.map((h) => `${relation(s.player, h)} at ${at(h)}`).join(', ')}.` : ' No hole next to player.';
  return `Player at ${at(s.player)}. Goal at ${at(goal)}, ${relation(s.player, goal)}.${near} Plan: ${plan.join(', ') || 'none'}.`;
}

function banditThink(s: BanditSnapshot, choice: string): string {
  const high = s.arms.find((a) => a.risk === 'high')!.name;
  const low = s.arms.find((a) => a.risk === 'low')!.name;
  return `${high} sounds bold and risky, it may pay a lot. ${low} sounds safe but small. I choose ${choice}.`;
}

/** An equation over all the numbers in a random order with random operators (no parentheses). */
function randomEquation(numbers: readonly number[], rng: Rng): string {
  return rng
    .shuffle(numbers)
    .map((n, i) => (i === 0 ? String(n) : `${rng.choice(['+', '-', '*', '/'])} ${n}`))
    .join(' ');
}

/** Countdown: the solver's equation (or, at the random share, any equation over the numbers) and its value. */
function countdownReply(s: TextSnapshot, randomShare: number, rng: Rng): { think: string; actions: string[] } {
  const { numbers, target } = s.state as { numbers: number[]; target: number };
  const solved = solveCountdown(numbers, target);
  const equation = solved && rng.float() >= randomShare ? solved : randomEquation(numbers, rng);
  const value = readEquation(equation)!.value;
  const shown = Number.isInteger(value) ? String(value) : value.toFixed(2);
  return { think: `Numbers ${numbers.join(', ')}. Target ${target}. ${equation} = ${shown}.`, actions: [equation] };
}

/**
 * A scripted expert that writes replies in the exact rollout format. It acts with the solver
 * (a share of actions replaced at random) and its think text states grounded facts about the
 * current state (positions, relative directions) and the plan.
 */
export class TeacherResponder implements Responder {
  constructor(private readonly opts: TeacherOptions) {}

  async respond(requests: ReplyRequest[], rng: Rng): Promise<Reply[]> {
    return requests.map((r) => ({ text: this.replyText(r, rng), tokenCount: 0 }));
  }

  private noisy(plan: string[], actions: readonly string[], rng: Rng): string[] {
    return plan.map((a) => (rng.float() < this.opts.randomActionShare ? rng.choice(actions) : a));
  }

  /** The reply after the prefilled `<think>`. */
  replyText(r: Pick<ReplyRequest, 'env' | 'actionsLeft'>, rng: Rng): string {
    const snap = r.env.snapshot();
    const cap = Math.max(1, Math.min(this.opts.maxActionsPerTurn, r.actionsLeft));
    let think: string;
    let actions: string[];
    if (snap.env === 'sokoban') {
      const plan = (solveSokoban(snap, { maxStates: 200_000 }) ?? [rng.choice(r.env.actions)]).slice(0, cap);
      actions = this.noisy(plan, r.env.actions, rng);
      think = sokobanThink(snap, actions);
    } else if (snap.env === 'frozenlake') {
      // On slippery ice a plan goes stale after the first slip, so the teacher commits to at most two moves,
      // each the move that maximises the chance of reaching the goal with the moves left (value iteration).
      const successRate = r.env instanceof FrozenLakeEnv ? r.env.config.successRate : 1;
      const plan = lakePlan(snap, successRate, r.actionsLeft, Math.min(cap, 2)) ?? [rng.choice(r.env.actions)];
      actions = this.noisy(plan, r.env.actions, rng);
      think = lakeThink(snap, actions);
    } else if (snap.env === 'text') {
      if (snap.name !== 'countdown') throw new Error(`no scripted teacher for the environment "${snap.name}"`);
      ({ think, actions } = countdownReply(snap, this.opts.randomActionShare, rng));
    } else {
      const high = snap.arms.find((a) => a.risk === 'high')!.name;
      actions = [rng.float() < this.opts.randomActionShare ? rng.choice(r.env.actions) : high];
      think = banditThink(snap, actions[0]!);
    }
    return `${think}</think><answer>${actions.join(' || ')}</answer>`;
  }
}
