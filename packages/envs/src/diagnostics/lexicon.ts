// Word lists and token shapes the claim reader matches (tokens come from normalize.ts).
import type { EntityRef, EntityType, OutcomeKind } from './claims.js';

export const DIRS = new Set(['up', 'down', 'left', 'right']);
export const NEGATIONS = new Set(['not', 'no', 'never', 'none', 'nothing', 'neither', 'nor', 'avoid', 'avoiding', 'avoids', 'without']);
export const UNITS = /^(steps?|squares?|cells?|tiles?|spaces?|units?|rows?|columns?|cols?|moves?|places?|positions?|times|blocks?)$/;
export const CONNECTORS = new Set([
  ',',
  'and',
  'then',
  'to',
  'the',
  'after',
  'that',
  'finally',
  'again',
  'more',
  'next',
  'first',
  ':',
  'one',
  'it',
  'a',
  'with',
]);
export const MOVE_VERB =
  /^(move|moves|moving|moved|go|goes|going|went|continue|continuing|proceed|proceeding|step|stepping|walk|walks|walking|push|pushes|pushing|pushed|head|heads|heading|slide|sliding|travel|travelling|traveling|turn|choose|chooses|choosing|pick|picks|select|selects|take|takes|taking|try|press|use|get|gets|getting)$/;
export const DECISION_WORDS = new Set(['plan', 'answer', 'action', 'actions', 'move', 'moves', 'decision', 'choice']);
export const HYPOTHETICAL = new Set(['if', 'would', 'could', 'might', 'whether', 'when', 'can', 'unless']);
export const MODALS = new Set(['must', 'should', 'needs', 'need', 'has', 'have', 'ought']);

/** Words after which a coordinate is where the subject is: "box at (2, 3)", "box: (2, 3)", "box, (2, 3)". */
export const COORD_LINK =
  /^(at|is|are|on|in|sits|sit|lies|lie|located|stands|standing|currently|now|still|,|:|=|and|position|cell|square|coordinates|coords|both|also|be|sitting|lying|resting|rests|=>|->|-)$/;

export const PUT = /^(puts?|leaves?|brings?|gets?|takes?|lands?|pushes|shoves?|moves|sends?|places?)$/;
export const MOVE_TAIL = /^(up|down|left|right|times|once)$/;

export const ENTITY = /^@(player|box|target|hole|goal|wall)(\+|#(\d+))?$/;
export const COORD = /^<(o?\d+|x|last)_(o?\d+|x|last)>$/;

export function entityOf(tok: string | undefined): EntityRef | null {
  const m = tok ? ENTITY.exec(tok) : null;
  if (!m) return null;
  return { type: m[1] as EntityType, plural: m[2] === '+', ...(m[3] ? { index: Number(m[3]) } : {}) };
}

export const PLAYER: EntityRef = { type: 'player', plural: false };

export const OUTCOME_WORDS: [RegExp, OutcomeKind][] = [
  [/^(hit|hits|hitting|bump|bumps|bumping|blocked|block|blocks|stuck|crash|crashes|crashing)$/, 'blocked'],
  [/^(fall|falls|falling|fell|drop|drops|dropping|sink|sinks|sinking|drown|drowns|plunge|plunges)$/, 'fall'],
  [/^(solve|solves|solving|solved|complete|completes|completing|finish|finishes|win|wins)$/, 'box_on_target'],
  [/^(reach|reaches|reaching|arrive|arrives|arriving)$/, 'reach_goal'],
];
/** "is open", "is free": the move is not blocked. */
export const OPEN = /^(open|free|clear|possible|available|allowed|unblocked|legal|valid)$/;
export const AVOID = /^(avoid|avoids|avoiding|dodge|dodges|dodging|skip|skips|skipping|miss|misses|missing|bypass|bypasses|bypassing)$/;
export const TOUCH =
  /^(touch|touches|touching|enter|enters|entering|cross|crosses|crossing|land|lands|landing|step|steps|stepping|hit|hits|hitting|visit|visits|visiting|end|ends|ending|pass|passes|passing)$/;
export const OUTCOME_STOP = new Set([',', 'so', 'therefore', 'thus', 'because', 'since', 'which', 'then', 'hence', 'if', 'but']);
export const PLACE_VERB =
  /^(leaves?|shoves?|gets?|getting|takes?|taking|puts?|putting|brings?|bringing|leads?|leading|lands?|landing|ends?|ending|moves?|moving|places?|placing|sends?|sending|goes|go|going|puts|be|lands|arrive|arrives|slides?|pushes|push|pushing|shifts?)$/;

/** Words that put what follows off the current board: conditions, the past, plans. */
export const COND =
  /^(if|unless|whether|suppose|supposing|assuming|imagine|once|after|until|would|could|might|'d|when|whenever|hopefully|ideally|eventually|later)$/;
export const PAST = /^(was|were|had|previous|previously|earlier|ago|initially|originally|used|before|last)$/;
export const PLAN = /^(want|wants|plan|plans|planning|hope|aim|aims|goal|intend|intends|try|trying|eventually)$/;
export const SCOPE_END = /^(so|therefore|thus|hence|now|currently|instead|presently|actually)$/;
