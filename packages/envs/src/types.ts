/** What one primitive action did to an environment. */
export interface StepResult {
  observation: string;
  reward: number;
  done: boolean;
  success: boolean;
  /** The action name was one of the environment's actions. */
  actionValid: boolean;
  /** The action changed the state (e.g. the player moved). */
  actionEffective: boolean;
}

export type Cell = readonly [row: number, col: number];

export interface SokobanSnapshot {
  env: 'sokoban';
  /** Fixed structure, one string per row: '#' wall, '_' floor, 'O' target. */
  fixed: string[];
  boxes: [number, number][];
  player: [number, number];
  steps: number;
  done: boolean;
  success: boolean;
}

export interface FrozenLakeSnapshot {
  env: 'frozenlake';
  /** Map letters, one string per row: S start, F frozen, H hole, G goal. */
  map: string[];
  player: [number, number];
  done: boolean;
  success: boolean;
}

export interface BanditSnapshot {
  env: 'bandit';
  /** Arms in the order shown to the agent. */
  arms: { name: string; risk: 'low' | 'high' }[];
  chosen: string | null;
  reward: number | null;
  done: boolean;
  success: boolean;
}

/** A turn of an environment spoken to through the protocol (docs/environments.md): drawn as its text. */
export interface TextSnapshot {
  env: 'text';
  /** The environment's name. */
  name: string;
  text: string;
  /** What the text's symbols mean, or null for plain text. */
  legend: string | null;
  /** Whatever else the environment keeps, stored as it sent it. */
  state: Record<string, unknown> | null;
  done: boolean;
  success: boolean;
}

/** JSON-serialisable state from which any turn can be redrawn without re-simulating. */
export type EnvSnapshot = SokobanSnapshot | FrozenLakeSnapshot | BanditSnapshot | TextSnapshot;

/** The one interface every environment implements. */
export interface Env<S extends EnvSnapshot = EnvSnapshot> {
  readonly name: string;
  /**
   * Start a new episode; the same seed always gives the same initial state. Returns the observation.
   * `stream` picks an independent draw of the episode's chance events (a payout, a slip) from the same
   * start: the members of a rollout group share the seed but not their luck, so a group compares moves,
   * not coin flips. Stream 0 (the default) is the seed's own draw.
   */
  reset(seed: number, stream?: number): string;
  /** Apply one primitive action by name (case-insensitive). Unknown names change nothing. */
  step(action: string): StepResult;
  /** Canonical action names, in the environment's id order (empty when `actionFormat` is set). */
  readonly actions: readonly string[];
  /** Set when any text is an action (Countdown's equation): how to write one. */
  readonly actionFormat?: string;
  /** Task description, symbol legend and action list for the system prompt. */
  instructions(): string;
  /** Text observation of the current state. */
  render(): string;
  snapshot(): S;
  /** Put the environment into a stored state (tests, replays, teachers). */
  restore(snapshot: S): void;
  readonly done: boolean;
  readonly success: boolean;
}

/** A board read back from observation text, or why there is none. */
export type ObservationParse<S extends EnvSnapshot = EnvSnapshot> = { ok: true; snapshot: S } | { ok: false; reason: string };
