import type { ReactNode } from 'react';

/**
 * Board tiles drawn as SVG shapes on a 16×16 grid: no emoji or font glyphs, so every browser
 * (Debian's Chromium without an emoji font included) draws them the same.
 */
export type Sprite =
  | 'wall'
  | 'floor'
  | 'target'
  | 'box'
  | 'box-on-target'
  | 'player'
  | 'player-on-target'
  | 'ice'
  | 'hole'
  | 'goal'
  | 'player-in-hole'
  | 'player-on-goal';

const C = {
  floor: '#243140',
  wall: '#6b4f3a',
  mortar: '#3b2c20',
  target: '#e0b23a',
  box: '#c98a2b',
  boxEdge: '#7a4f12',
  boxDone: '#3fb950',
  boxDoneEdge: '#1a5e2a',
  player: '#5aa9ff',
  playerEdge: '#0b3d7a',
  ice: '#9cc3dc',
  hole: '#05080c',
  goal: '#2e8b57',
  flag: '#f85149',
};

const wall = (
  <>
    <rect width="16" height="16" fill={C.wall} />
    <path d="M0 5.5h16M0 10.5h16M5 0v5.5M11 5.5v5M5 10.5V16" stroke={C.mortar} strokeWidth="1" />
  </>
);
const floor = <rect width="16" height="16" fill={C.floor} />;
const ice = <rect width="16" height="16" fill={C.ice} />;
const ring = <circle cx="8" cy="8" r="5.5" fill="none" stroke={C.target} strokeWidth="1.5" strokeDasharray="2 1.4" />;
const box = (fill: string, edge: string) => (
  <>
    <rect x="2.5" y="2.5" width="11" height="11" rx="1" fill={fill} stroke={edge} strokeWidth="1" />
    <path d="M3 3l10 10M13 3L3 13" stroke={edge} strokeWidth="1" />
  </>
);
const check = (
  <path d="M4.5 8.2l2.3 2.3 4.7-4.9" fill="none" stroke="#fff" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
);
const player = (
  <>
    <circle cx="8" cy="5" r="2.6" fill={C.player} stroke={C.playerEdge} strokeWidth="0.8" />
    <path d="M3.8 14c0-3.2 1.9-5.2 4.2-5.2s4.2 2 4.2 5.2z" fill={C.player} stroke={C.playerEdge} strokeWidth="0.8" />
  </>
);
const hole = (
  <>
    <rect width="16" height="16" fill={C.ice} />
    <ellipse cx="8" cy="8.5" rx="6.3" ry="5.3" fill={C.hole} />
  </>
);
const goal = (
  <>
    <rect width="16" height="16" fill={C.goal} />
    <path d="M5 14V2.5" stroke="#e6edf3" strokeWidth="1.2" />
    <path d="M5.6 2.8l6.6 2.4-6.6 2.4z" fill={C.flag} />
  </>
);

const DRAW: Record<Sprite, ReactNode> = {
  wall,
  floor,
  target: (
    <>
      {floor}
      {ring}
    </>
  ),
  box: (
    <>
      {floor}
      {box(C.box, C.boxEdge)}
    </>
  ),
  'box-on-target': (
    <>
      {floor}
      {ring}
      {box(C.boxDone, C.boxDoneEdge)}
      {check}
    </>
  ),
  player: (
    <>
      {floor}
      {player}
    </>
  ),
  'player-on-target': (
    <>
      {floor}
      {ring}
      {player}
    </>
  ),
  ice,
  hole,
  goal,
  'player-in-hole': (
    <>
      {hole}
      <g opacity="0.55">{player}</g>
      <path d="M4 4l8 8M12 4l-8 8" stroke={C.flag} strokeWidth="1.6" />
    </>
  ),
  'player-on-goal': (
    <>
      {goal}
      {player}
    </>
  ),
};

/** One tile; `label` names it for screen readers and the tooltip. */
export function SpriteIcon({ sprite, size, label }: { sprite: Sprite; size: number; label?: string }) {
  return (
    <svg
      viewBox="0 0 16 16"
      width={size}
      height={size}
      data-sprite={sprite}
      aria-hidden={label ? undefined : true}
      role={label ? 'img' : undefined}
      aria-label={label}
      shapeRendering="geometricPrecision"
    >
      {DRAW[sprite]}
    </svg>
  );
}
