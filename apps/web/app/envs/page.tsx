'use client';

import { useMemo, useState } from 'react';
import { createEnv, type EnvSnapshot } from '@starpo/envs';
import { Board } from '../../components/Board';
import { useTitle } from '../../lib/title';

function initialState(env: string, seed: number): { snapshot: EnvSnapshot; observation: string } | { error: string } {
  try {
    const e = createEnv(env);
    const observation = e.reset(seed);
    return { snapshot: e.snapshot(), observation };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** Initial Sokoban and FrozenLake maps for a seed, generated in the browser by @starpo/envs. */
export default function EnvsPage() {
  useTitle('Environments');
  const [seedText, setSeedText] = useState('3');
  const seed = Number(seedText);
  const valid = seedText.trim() !== '' && Number.isSafeInteger(seed);
  const sokoban = useMemo(() => (valid ? initialState('sokoban', seed) : null), [valid, seed]);
  const lake = useMemo(() => (valid ? initialState('frozenlake', seed) : null), [valid, seed]);
  return (
    <div>
      <h1>Environments</h1>
      <label>
        Seed
        <input
          data-testid="seed"
          value={seedText}
          onChange={(e) => setSeedText(e.target.value)}
          inputMode="numeric"
          aria-invalid={!valid}
        />
      </label>
      {!valid && <p className="error">Enter an integer seed.</p>}
      <div className="row" style={{ marginTop: 16 }}>
        {[
          { title: 'Sokoban 6×6, 1 box', id: 'sokoban', state: sokoban },
          { title: 'FrozenLake 4×4', id: 'frozenlake', state: lake },
        ].map(({ title, id, state }) => (
          <section key={id} className="panel">
            <h2>{title}</h2>
            {state && 'error' in state && <p className="error">{state.error}</p>}
            {state && 'snapshot' in state && <Board snapshot={state.snapshot} testId={`board-${id}`} />}
          </section>
        ))}
      </div>
    </div>
  );
}
