'use client';
import { createEnv, validSnapshot } from '@starpo/envs';
import { useParams, useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useState } from 'react';
import { Board } from '../../../components/Board';
import { FLAG_MEANINGS, flagName } from '../../../components/flags';
import { SentenceVerdicts } from '../../../components/SentenceVerdicts';
import { ThinkText } from '../../../components/ThinkText';
import { useRun, useTrajectory } from '../../../lib/queries';
import { useTitle } from '../../../lib/title';

/**
 * Episode replay: the board of each turn drawn from its stored snapshot (the state the agent
 * saw), next to what it thought and answered, which actions were invalid or had no effect, and
 * the rewards. ←/→ step, space plays.
 */
type ActionState = 'valid' | 'invalid' | 'not-run';

/**
 * Each answered action: valid and executed, invalid, or valid but never run because the episode had
 * ended (a turn stores the valid actions, not the executed ones, so the end is found by replaying
 * the turn's valid actions from its stored state).
 */
function actionStates(
  env: string,
  config: Record<string, unknown> | undefined,
  turn: { parsedActions: string[]; validActions: string[]; stateSnapshot: unknown; done: boolean },
): ActionState[] {
  let ran = turn.validActions.length;
  const state = turn.done ? validSnapshot(env, turn.stateSnapshot) : null;
  if (state) {
    try {
      const e = createEnv(env, config ?? {});
      e.restore(state as never);
      ran = turn.validActions.findIndex((a) => e.step(a).done) + 1 || ran;
    } catch {
      /* an environment this browser cannot rebuild: every valid action counts as run */
    }
  }
  let j = 0;
  return turn.parsedActions.map((a) => {
    if (turn.validActions[j] !== a) return 'invalid';
    j += 1;
    return j <= ran ? 'valid' : 'not-run';
  });
}

const ACTION_TITLES: Record<ActionState, string> = {
  valid: 'valid action',
  invalid: 'invalid action',
  'not-run': 'not run: the episode had already ended',
};

/** Why a stored turn has no board: the server's note, or a generic one for older rows. */
function missingReason(snapshot: unknown): string {
  const note = snapshot && typeof snapshot === 'object' ? (snapshot as { missing?: unknown }).missing : undefined;
  return typeof note === 'string' ? note : 'no board state was stored for this turn';
}

/** The board of a turn when its snapshot is drawable, else the observation text with the reason. */
function TurnState({ env, snapshot, observation }: { env: string; snapshot: unknown; observation: string }) {
  const state = validSnapshot(env, snapshot);
  if (state)
    return (
      <>
        <Board snapshot={state} testId="replay-board" />
        <p className="muted">state the agent saw at this turn</p>
      </>
    );
  return (
    <>
      <pre className="grid-text observation" data-testid="replay-observation">
        {observation || '(empty observation)'}
      </pre>
      <p className="muted" data-testid="no-board-note">
        Shown as text: {missingReason(snapshot)}.
      </p>
    </>
  );
}

export default function ReplayPage() {
  const { id } = useParams<{ id: string }>();
  const { data: t, error } = useTrajectory(id);
  const { data: run } = useRun(t?.runId);
  useTitle(t ? `Replay: ${run?.name ?? 'run'}, step ${t.step}` : null);
  const search = useSearchParams();
  // ?turn=N (0-based) opens the replay at that turn, as the diagnostics tab's examples link
  const [turn, setTurn] = useState(() => Math.max(0, Number(search.get('turn')) || 0));
  const [playing, setPlaying] = useState(false);
  const [raw, setRaw] = useState(false);
  const n = t?.turns.length ?? 0;
  const go = useCallback((d: number) => setTurn((x) => Math.max(0, Math.min(n - 1, x + d))), [n]);

  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      if ((e.target as HTMLElement).tagName === 'INPUT' && (e.target as HTMLInputElement).type !== 'range') return;
      if (e.key === 'ArrowRight') go(1);
      else if (e.key === 'ArrowLeft') go(-1);
      else if (e.key === ' ') {
        e.preventDefault();
        setPlaying((p) => !p);
      } else return;
    };
    window.addEventListener('keydown', key);
    return () => window.removeEventListener('keydown', key);
  }, [go]);
  useEffect(() => {
    if (!playing) return;
    const timer = setInterval(() => setTurn((x) => (x + 1 < n ? x + 1 : (setPlaying(false), x))), 1000);
    return () => clearInterval(timer);
  }, [playing, n]);

  if (error)
    return (
      <div className="panel error">
        {error.status === 404 ? 'This trajectory does not exist or belongs to another team.' : error.message}
      </div>
    );
  if (!t) return <p className="muted">Loading…</p>;
  if (!n) return <div className="panel empty">This trajectory has no turns.</div>;
  const u = t.turns[Math.min(turn, n - 1)]!;
  const d = u.diagnostics;
  const running = t.turns.slice(0, turn + 1).reduce((s, x) => s + x.reward, 0);
  const envConfig = (run?.config.env as { config?: Record<string, unknown> } | undefined)?.config;
  const states = actionStates(t.environment, envConfig, u);
  const invalid = states.filter((x) => x === 'invalid').length;
  const notRun = states.filter((x) => x === 'not-run').length;
  // after the last turn: the board the episode ended on (the box on its target, the goal reached)
  const finalBoard = turn >= n - 1 ? validSnapshot(t.environment, t.finalSnapshot) : null;

  return (
    <div>
      <div className="toolbar">
        <h1>
          Episode replay — {t.environment}, seed {t.seed}
        </h1>
        <span className={t.success ? 'badge s-succeeded' : 'badge s-failed'}>{t.success ? 'success' : 'failure'}</span>
        <span className="muted">
          <a href={`/runs/${t.runId}`} data-testid="replay-run-link">
            {run?.name ?? 'run'}
          </a>{' '}
          · step {t.step} · {t.split} · group {t.group} #{t.indexInGroup} · total reward {t.totalReward.toFixed(2)}
        </span>
        {t.flags.map((f) => (
          <span key={f} className={`flag flag-${f}`} data-testid="trajectory-flag" title={FLAG_MEANINGS[f]}>
            {flagName(f)}
          </span>
        ))}
      </div>
      <div className="controls">
        <button onClick={() => go(-1)} disabled={turn === 0} aria-label="previous turn">
          ←
        </button>
        <button onClick={() => setPlaying(!playing)} data-testid="play">
          {playing ? 'Pause' : 'Play'}
        </button>
        <button onClick={() => go(1)} disabled={turn === n - 1} aria-label="next turn" data-testid="next-turn">
          →
        </button>
        <input
          type="range"
          min={0}
          max={n - 1}
          value={turn}
          onChange={(e) => setTurn(Number(e.target.value))}
          aria-label="turn"
          data-testid="turn-slider"
        />
        <span data-testid="turn-label">
          turn {turn + 1} / {n}
        </span>
      </div>
      <div className="row">
        <div className="panel">
          <TurnState env={t.environment} snapshot={u.stateSnapshot} observation={u.observation} />
          {finalBoard ? (
            <>
              <Board snapshot={finalBoard} testId="replay-final-board" />
              <p className="muted">final state, after this turn&apos;s actions</p>
            </>
          ) : null}
        </div>
        <div className="panel grow turn" data-testid="turn-detail">
          <h3>Think</h3>
          <p data-testid="think">
            {u.think ? <ThinkText think={u.think} claims={d?.claims ?? []} /> : <span className="muted">(empty)</span>}
          </p>
          {d && d.claims.length ? (
            <p className="muted" data-testid="claim-summary">
              {d.claims.length} claims checked: {d.contradicted} contradicted, {d.checkable - d.contradicted} supported,{' '}
              {d.claims.length - d.checkable} not checkable{d.template ? ' · the same think was written for another state this step' : ''}
            </p>
          ) : null}
          {u.think && d ? <SentenceVerdicts trajectoryId={t.id} turn={turn} think={u.think} claims={d.claims} /> : null}
          <h3>Answer</h3>
          <p data-testid="answer">
            <code className={d?.thinkAnswer === 'mismatch' ? 'mismatch' : undefined}>{u.answer || '(none)'}</code>
            {!u.formatOk ? <span className="badge s-failed">format penalty: the reply broke the format</span> : null}
            {d?.thinkAnswer === 'mismatch' ? (
              <span className="badge s-failed" data-testid="think-answer-mismatch">
                {flagName('think_answer_mismatch')}: {d.thinkAnswerEvidence}
              </span>
            ) : null}
          </p>
          <h3>Actions</h3>
          <p>
            {u.parsedActions.length
              ? u.parsedActions.map((a, i) => (
                  <span key={i} className={`action ${states[i]}`} title={ACTION_TITLES[states[i]!]} data-testid={`action-${states[i]}`}>
                    {a}
                  </span>
                ))
              : '(none)'}
          </p>
          <p className="muted">
            {u.validActions.length - notRun} run, {invalid} invalid{notRun ? `, ${notRun} not run (the episode had ended)` : ''},{' '}
            {u.effectiveCount} changed the state
          </p>
          {d?.outcome === 'mismatch' ? (
            <p>
              <span className="badge s-failed" data-testid="outcome-mismatch">
                outcome mismatch: {d.outcomeEvidence}
              </span>
            </p>
          ) : null}
          <h3>Reward</h3>
          <p>
            this turn <b>{u.reward.toFixed(2)}</b>, running total <b>{running.toFixed(2)}</b>
            {u.done ? ' · episode ended' : ''}
          </p>
          <button className="link" onClick={() => setRaw(!raw)}>
            {raw ? 'Hide' : 'Show'} raw reply
          </button>
          {raw ? <pre className="raw">{u.rawReply}</pre> : null}
        </div>
      </div>
    </div>
  );
}
