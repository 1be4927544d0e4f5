import { frozenLakeGrid, sokobanGrid, type EnvSnapshot } from '@starpo/envs';

/** What each text symbol looks like: a background class and a glyph on top. */
const SOKOBAN: Record<string, { cls: string; glyph: string; label: string }> = {
  '#': { cls: 'wall', glyph: '', label: 'wall' },
  _: { cls: 'floor', glyph: '', label: 'floor' },
  O: { cls: 'target', glyph: '', label: 'target' },
  X: { cls: 'floor', glyph: '📦', label: 'box' },
  '√': { cls: 'target', glyph: '✅', label: 'box on target' },
  P: { cls: 'floor', glyph: '🧑', label: 'player' },
  S: { cls: 'target', glyph: '🧑', label: 'player on target' },
};
const LAKE: Record<string, { cls: string; glyph: string; label: string }> = {
  _: { cls: 'ice', glyph: '', label: 'frozen' },
  O: { cls: 'hole', glyph: '', label: 'hole' },
  G: { cls: 'goal', glyph: '🏁', label: 'goal' },
  P: { cls: 'ice', glyph: '🧑', label: 'player' },
  X: { cls: 'hole', glyph: '💀', label: 'player in hole' },
  '√': { cls: 'goal', glyph: '🏆', label: 'player on goal' },
};

/** Draws a Sokoban or FrozenLake board from a stored state snapshot. */
export function Board({ snapshot, testId }: { snapshot: EnvSnapshot; testId?: string }) {
  if (snapshot.env === 'bandit') {
    return (
      <div className="panel" data-testid={testId}>
        {snapshot.arms.map((a) => (
          <div key={a.name}>
            {a.name} ({a.risk} risk){snapshot.chosen === a.name ? ` ← chosen, reward ${snapshot.reward}` : ''}
          </div>
        ))}
      </div>
    );
  }
  const rows = snapshot.env === 'sokoban' ? sokobanGrid(snapshot) : frozenLakeGrid(snapshot);
  const legend = snapshot.env === 'sokoban' ? SOKOBAN : LAKE;
  return (
    <div>
      <div
        className="board"
        role="img"
        aria-label={rows.join('\n')}
        data-testid={testId}
        style={{ gridTemplateColumns: `repeat(${rows[0]?.length ?? 0}, 44px)` }}
      >
        {rows.flatMap((row, r) =>
          [...row].map((ch, c) => {
            const look = legend[ch] ?? { cls: 'floor', glyph: ch, label: ch };
            return (
              <div key={`${r}-${c}`} className={`cell ${look.cls}`} title={`(${r}, ${c}) ${look.label}`}>
                {look.glyph}
              </div>
            );
          }),
        )}
      </div>
      <pre className="grid-text" data-testid={testId ? `${testId}-text` : undefined}>
        {rows.join('\n')}
      </pre>
    </div>
  );
}
