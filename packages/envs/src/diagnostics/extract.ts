// The claim reader: runs the rules (rules.ts) over each sentence of a think text, token by token.
import type { Extraction } from './claims.js';
import { conventionOf, sentences, type EnvKind } from './normalize.js';
import { RULES } from './rules.js';
import { SentenceState, TextState } from './sentence-state.js';

export type {
  Claim,
  CountClaim,
  Decision,
  Dir,
  DistanceClaim,
  EntityRef,
  EntityType,
  Extraction,
  OnTargetClaim,
  OutcomeClaim,
  OutcomeKind,
  PositionClaim,
  RelationClaim,
  RelationPart,
} from './claims.js';

/** Tries the rules in order on the token at s.i until one consumes it; stamps the claims each emits. */
function readToken(s: SentenceState): void {
  const from = s.i;
  const claims = s.text.claims;
  for (const rule of RULES) {
    const before = claims.length;
    const consumed = rule.read(s);
    for (let k = before; k < claims.length; k++) {
      const c = claims[k]!;
      c.rule ??= rule.name;
      c.tokens = [from, Math.max(s.i, from) + 1];
    }
    // reading never goes back: a rule that would rewind the cursor would read the same tokens forever
    if (s.i < from) s.i = from;
    if (consumed) return;
  }
}

/**
 * Claims about the state, predicted outcomes and decided moves in a think text. `actionWords`
 * are extra action names (the bandit's arms) that count as moves. `base` is the coordinate base
 * unless the text declares its own.
 */
export function extractClaims(think: string, env: EnvKind, actionWords: readonly string[] = [], base: 0 | 1 = 0): Extraction {
  const convention = conventionOf(think);
  const text = new TextState(env, new Set(actionWords.map((a) => a.toLowerCase())), convention.base ?? base);
  for (const sentence of sentences(think, env, convention)) {
    // a question claims nothing
    const question = /^\s*\?/.test(think.slice(sentence.span[1], sentence.span[1] + 3));
    const s = new SentenceState(text, sentence.tokens, sentence.span, question);
    for (s.i = 0; s.i < s.toks.length; s.i++) readToken(s);
  }
  return { claims: text.claims, decisions: text.decisions, convention, paths: text.paths };
}
