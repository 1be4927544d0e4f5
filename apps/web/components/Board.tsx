import { frozenLakeGrid, sokobanGrid, type EnvSnapshot } from '@starpo/envs';
import { SpriteIcon, type Sprite } from './Sprites';

/** Each text symbol of a board and the tile that draws it. */
const SOKOBAN: Record<string, { sprite: Sprite; label: string }> = {
  '#': { sprite: 'wall', label: 'wall' },
  _: { sprite: 'floor', label: 'floor' },
  O: { sprite: 'target', label: 'target' },
  X: { sprite: 'box', label: 'box' },
  '√': { sprite: 'box-on-target', label: 'box on target' },
  P: { sprite: 'player', label: 'player' },
  S: { sprite: 'player-on-target', label: 'player on target' },
};
const LAKE: Record<string, { sprite: Sprite; label: string }> = {
  _: { sprite: 'ice', label: 'frozen' },
  O: { sprite: 'hole', label: 'hole' },
  G: { sprite: 'goal', label: 'goal' },
  P: { sprite: 'player', label: 'player' },
  X: { sprite: 'player-in-hole', label: 'player in hole' },
  '√': { sprite: 'player-on-goal', label: 'player on goal' },
};

/**
 * Draws a Sokoban or FrozenLake board from a stored state snapshot, with a legend of its symbols
 * (a protocol environment's turn as its text and legend).
 * `compact` draws small tiles without the text and legend (small multiples in the group view).
 */
export function Board({ snapshot, testId, compact = false }: { snapshot: EnvSnapshot; testId?: string; compact?: boolean }) {
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
  if (snapshot.env === 'text') {
    // an environment served through the protocol: its own drawing, with its legend
    return (
      <div className="panel" data-testid={testId}>
        <pre data-testid={testId ? `${testId}-text` : undefined}>{snapshot.text}</pre>
        {!compact && snapshot.legend ? <div className="muted">{snapshot.legend}</div> : null}
      </div>
    );
  }
  const rows = snapshot.env === 'sokoban' ? sokobanGrid(snapshot) : frozenLakeGrid(snapshot);
  const legend = snapshot.env === 'sokoban' ? SOKOBAN : LAKE;
  const size = compact ? 14 : 40;
  return (
    <div className={compact ? 'board-wrap compact' : 'board-wrap'}>
      <div
        className="board"
        role="img"
        aria-label={rows.join('\n')}
        data-testid={testId}
        style={{ gridTemplateColumns: `repeat(${rows[0]?.length ?? 0}, ${size}px)` }}
      >
        {rows.flatMap((row, r) =>
          [...row].map((ch, c) => {
            const look = legend[ch];
            return look ? (
              <span key={`${r}-${c}`} className="cell" title={compact ? undefined : `(${r}, ${c}) ${look.label}`}>
                <SpriteIcon sprite={look.sprite} size={size} />
              </span>
            ) : (
              <span key={`${r}-${c}`} className="cell unknown" style={{ width: size, height: size }}>
                {ch}
              </span>
            );
          }),
        )}
      </div>
      {compact ? null : (
        <>
          <ul className="legend" aria-label="legend" data-testid={testId ? `${testId}-legend` : undefined}>
            {Object.entries(legend).map(([ch, look]) => (
              <li key={ch}>
                <SpriteIcon sprite={look.sprite} size={18} /> <code>{ch}</code> {look.label}
              </li>
            ))}
          </ul>
          <pre className="grid-text" data-testid={testId ? `${testId}-text` : undefined}>
            {rows.join('\n')}
          </pre>
        </>
      )}
    </div>
  );
}
