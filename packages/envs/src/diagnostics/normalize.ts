/**
 * Think text → a canonical token stream that the claim extractor reads: lower case, numbers as
 * digits, directions as up/down/left/right, entities as `@player`, `@box`, … and coordinates as
 * `<r,c>`. Rules are ordered: multi-word phrases first, then single words.
 */

import type { EnvSnapshot } from '../types.js';
import { Rewrite } from './required-text.js';

/** The environments a think text can be about: every kind of stored snapshot. */
/** The environments the reasoning checks know (a protocol environment's text has no checker). */
export type EnvKind = Exclude<EnvSnapshot['env'], 'text'>;

/** How a think text writes coordinates: its own declaration, else the environment's (row, col) from 0. */
export interface Convention {
  /** `(x, y)` / `(col, row)`: the first number is the column. */
  xy: boolean;
  /** Declared 1-based ("1-indexed", "counting from 1"); undefined = not declared. */
  base?: 0 | 1;
  /** The text speaks of x/y or indexing without a declaration we can read: a verdict that depends on it is not checkable. */
  unclear: boolean;
}

const ONE_BASED =
  /\b(?:1|one)[- ]?(?:indexed|indexing|index|based)\b|\b(?:count(?:ing)?|index(?:ed|ing)?|number(?:ed|ing)?|start(?:ing)?|begin(?:ning)?)\s+(?:at|from|with)\s+(?:1|one)\b/i;
const ZERO_BASED =
  /\b(?:0|zero)[- ]?(?:indexed|indexing|index|based)\b|\b(?:count(?:ing)?|index(?:ed|ing)?|number(?:ed|ing)?|start(?:ing)?|begin(?:ning)?)\s+(?:at|from|with)\s+(?:0|zero)\b/i;
const XY =
  /[([]\s*x\s*,\s*y\s*[)\]]|[([]\s*col(?:umn)?\s*,\s*row\s*[)\]]|\bx\s*(?:=|is|:|as|being|means|for|)\s*(?:the\s+)?(?:col|horizontal)|\by\s*(?:=|is|:|as|being|means|for|)\s*(?:the\s+)?(?:row|vertical)|\bcolumn\s+first\b|\bcol(?:umn)?\s*,\s*row\b/i;
const RC =
  /[([]\s*row\s*,\s*col(?:umn)?\s*[)\]]|[([]\s*r\s*,\s*c\s*[)\]]|\bx\s*(?:=|is|:|as|being|means|for|)\s*(?:the\s+)?row|\brow\s+first\b/i;
const AXIS_TALK = /\b[xy]\s*[=,:]|\bindex(?:ed|ing)?\b|\b[xy][- ]?(?:axis|coordinate)/i;

export function conventionOf(think: string): Convention {
  const xy = XY.test(think) && !RC.test(think);
  const base = ONE_BASED.test(think) ? 1 : ZERO_BASED.test(think) ? 0 : undefined;
  const declared = xy || RC.test(think) || base !== undefined;
  return { xy, ...(base !== undefined ? { base } : {}), unclear: !declared && AXIS_TALK.test(think) };
}

export interface Sentence {
  /** Offsets of the sentence in the original think text. */
  span: [number, number];
  text: string;
  tokens: string[];
}

const NUMBER_WORDS: Record<string, number | string> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  first: '1st',
  second: '2nd',
  third: '3rd',
  fourth: '4th',
  fifth: '5th',
  sixth: '6th',
  seventh: '7th',
  eighth: '8th',
  ninth: '9th',
  tenth: '10th',
};

type Rule = [RegExp, string];

const COMMON_RULES: Rule[] = [
  [/[’‘]/g, "'"],
  [/\b(up|down|left|right)\s*(?:-|→|->|=>|\/)\s*(?=(?:up|down|left|right)\b)/g, '$1, '],
  [/\b(up|down|left|right)\s*(?:-|→|->|=>|\/)\s*(?=(?:up|down|left|right)\b)/g, '$1, '],
  [/\bcan ?not\b|\bcan't\b/g, 'can not'],
  [/\bwon't\b/g, 'will not'],
  [/n't\b/g, ' not'],
  [/\btwice\b/g, '2 times'],
  [/\b(up|down|left|right) once\b/g, '$1 1 times'],
  [/\b(up|down|left|right)\s*[x×]\s*(\d+)\b/g, '$1 $2 times'],
  [/\bthrice\b/g, '3 times'],
  // ordinals count from 1 whatever base the coordinates use: "the first column" is column 0
  [/\bin (?:the )?(\d+)(?:st|nd|rd|th) row\b/g, ' <o$1_x> '],
  [/\bin (?:the )?(\d+)(?:st|nd|rd|th) (?:col|column)\b/g, ' <x_o$1> '],
  // "the second box": box 2, not a count
  [/\b(?:the )?(\d+)(?:st|nd|rd|th) (box|crate|target|goal|hole)\b/g, ' $2 $1 '],
  [/\b(\d+)(?:st|nd|rd|th)\b/g, '$1'],
  [/\bright (move|action|choice|direction|way|path|call)\b/g, 'best $1'],
  // coordinates
  [/\(\s*row\s*(\d+)\s*,?\s*(?:and\s+)?col(?:umn)?\s*(\d+)\s*\)/g, ' <$1_$2> '],
  [/\brow\s*(\d+)\s*,?\s*(?:and\s+|in\s+)?col(?:umn)?\s*(\d+)/g, ' <$1_$2> '],
  [/\bcol(?:umn)?\s*(\d+)\s*,?\s*(?:and\s+|in\s+)?row\s*(\d+)/g, ' <$2_$1> '],
  [/[([]\s*(\d+)\s*,\s*(\d+)\s*[)\]]/g, ' <$1_$2> '],
  [/\br(\d+)\s*c(\d+)\b/g, ' <$1_$2> '],
  // one axis only: "in row 3", "in the second column", "row 2 has…"
  [/\brow (\d+)\b(?!\s*,?\s*(?:and\s+)?col)/g, ' <$1_x> '],
  [/\b(?:col|column) (\d+)\b(?!\s*,?\s*(?:and\s+)?row)/g, ' <x_$1> '],
  [/\bin (?:the )?row (\d+)\b/g, ' <$1_x> '],
  [/\bin (?:the )?(?:col|column) (\d+)\b/g, ' <x_$1> '],
  [/\bin (?:the )?(\d+) row\b/g, ' <$1_x> '],
  [/\bin (?:the )?(\d+) (?:col|column)\b/g, ' <x_$1> '],
  // adjacency and directions
  [/\b(?:right next to|next to|adjacent to|beside|right beside|neighbou?ring|near|close to|nearby|around)\b/g, ' ~adj '],
  [/\b(?:on|to) its (left|right)\b/g, ' $1 of its '],
  [
    /\b(?:right|immediately|directly|straight|(?<!(?:row|column|col|line) )just)\s+(?=(?:to the\s+|on the\s+|to my\s+|on my\s+)?(?:north|south|east|west|up|down|left|right|above|below|beneath|under)\b)/g,
    ' ~direct ',
  ],
  [/\b(?:on|to) (?:my|the player's|the agent's) (left|right)\b/g, ' $1 of me '],
  // corners of the board (FrozenLake only: a Sokoban room's corners are walls)
  [/\b(?:the )?(top|upper|bottom|lower)[- ]?(left|right) corner\b/g, ' ~corner_$1_$2 '],
  [/\b(?:the )?(left|right)[- ]?(top|upper|bottom|lower) corner\b/g, ' ~corner_$2_$1 '],
  // "in the top-left", "in the bottom half": regions, not directions from the player
  [/\bin the (?:top|bottom|upper|lower|left|right)(?:[- ](?:left|right))?\b(?! of)/g, ' ~place '],
  // "the bottom row", "the top wall", "the left edge": places, not directions
  [
    /\b(?:top|bottom|upper|lower|left|right|leftmost|rightmost)(?:[- ](?:left|right))? (?:row|column|col|side|edge|corner|part|half|wall|border)s?\b/g,
    ' ~place ',
  ],
  [/\bto the (left|right)\b/g, ' $1 '],
  [/\bon the (left|right)\b/g, ' $1 '],
  [/\b(north|south)[- ]?(east|west)\b/g, ' $1 $2 '],
  [/\b(up|down|upper|lower|top|bottom)[- ](left|right)\b/g, ' $1 $2 '],
  [/\b(?:north(?:wards?)?|upwards?|above|upper|top)\b/g, ' up '],
  [/\b(?:south(?:wards?)?|downwards?|below|beneath|underneath|under|lower|bottom)\b/g, ' down '],
  [/\b(?:west(?:wards?)?|leftwards?)\b/g, ' left '],
  [/\b(?:east(?:wards?)?|rightwards?)\b/g, ' right '],
  [/\bshare (?:a|the same|one|any|their|our) (row|column|col)\b/g, ' ~same$1 '],
  [/\b(?:on|in) (?:a|one) (row|column|col)\b(?= with)/g, ' ~same$1 '],
  [/\bsame (row|column|col) as\b/g, ' ~same$1 '],
  [/\bin the same (row|column|col)\b/g, ' ~same$1 '],
  [/\bthe same (row|column|col)\b/g, ' ~same$1 '],
  // "the cell to my right is a hole": one cell, named by where it is
  [/\b(?:the|that|this) (?:cell|square|tile|spot|space)\b/g, ' ~cell '],
  // the player
  [/\b(?:i am|i'm|im)\b/g, ' @player is '],
  [/(?<!@)\b(?:my (?:current )?(?:position|location|cell|square|tile)|the player|player|the agent|agent|myself|me)\b/g, ' @player '],
  [/\bi\b/g, ' @player '],
];

const SOKOBAN_RULES: Rule[] = [
  [/~corner_\w+/g, ' ~place '],
  [/\b(?:the )?(?:boxes|crates)\b/g, ' @box+ '],
  [
    /\b(?:the |a |another |one )?(?:box|crate)\s*(?:#|no\.?\s*)?(\d)\b(?!\s*(?:steps?|squares?|cells?|tiles?|spaces?|rows?|columns?|times))/g,
    ' @box#$1 ',
  ],
  [/\b(?:the |a |another )?(?:box|crate)\b/g, ' @box '],
  [/\b(?:the )?(?:targets|goals|goal squares|storage locations|docks)\b/g, ' @target+ '],
  [/\b(?:the |a |another )?(?:target|goal square|storage location|dock|goal)(?! is to\b)\b/g, ' @target '],
  [/\b(?:the )?walls\b/g, ' @wall+ '],
  [/\b(?:the |a )?wall\b/g, ' @wall '],
  [/\b(?:the )?holes\b/g, ' @hole+ '],
  [/\b(?:the |a )?hole\b/g, ' @hole '],
];

const LAKE_RULES: Rule[] = [
  [/~corner_(top|upper)_(left|right)/g, ' <0_$2> '],
  [/~corner_(bottom|lower)_(left|right)/g, ' <last_$2> '],
  [/\b(?:the )?(?:holes|pits)\b/g, ' @hole+ '],
  [/\b(?:the |a |another )?(?:hole|pit)\b/g, ' @hole '],
  [/\b(?:the |a )?(?:goal|gift|present|frisbee|target|destination|exit)(?! is to\b)\b/g, ' @goal '],
  [/\b(?:the )?(?:walls|edges|borders|boundaries)\b/g, ' @wall+ '],
  [/\b(?:the |a )?(?:wall|edge|border|boundary)(?: of the (?:board|map|grid|lake))?\b/g, ' @wall '],
  [/\b(?:the )?(?:boxes|crates)\b/g, ' @box+ '],
  [/\b(?:the |a )?(?:box|crate)\b/g, ' @box '],
];

/** Board symbols as names, when a coordinate follows: `P=(2,1) | X=(2,2)`, `G at r3c3`. Upper case only. */
const SYMBOLS: Record<'sokoban' | 'frozenlake', Record<string, string>> = {
  sokoban: { P: 'player', S: 'player', X: 'box', '√': 'box', O: 'target' },
  frozenlake: { P: 'player', G: 'goal', H: 'hole', O: 'hole' },
};
const SYMBOL = /(?<![\w@(,])([PSXOGH√])(?:\s*(?:=|:|@|->|is at|at|sits at|on)\s*|\s*)(?=[([]\s*\d|r\s*\d|row\s*\d)/g;

const NUMBER_WORD = new RegExp(`\\b(${Object.keys(NUMBER_WORDS).join('|')})\\b`, 'g');

/** Entity rules must not match inside a token they already produced ("@box"). */
const notInToken = (rules: Rule[]): Rule[] => rules.map(([re, to]) => [new RegExp(`(?<![@\\w])${re.source}`, re.flags), to]);
const compile = (rules: Rule[]): Rewrite[] => rules.map(([re, to]) => new Rewrite(re, to));
const COMMON = compile(COMMON_RULES);
const SOKOBAN = compile(notInToken(SOKOBAN_RULES));
const LAKE = compile(notInToken(LAKE_RULES));

function applyRules(text: string, rules: Rewrite[]): string {
  let s = text;
  for (const rule of rules) s = rule.apply(s);
  return s;
}

/** Sentence boundaries: . ! ? ; and new lines (not a dot inside a number), plus "but"/"whereas"/"while". */
const BOUNDARY = /\.(?!\d)|[!?;\n|]|\b(?:but|whereas|while|although|however)\b/gi;

export function splitSentences(think: string): [number, number][] {
  const spans: [number, number][] = [];
  let start = 0;
  for (const m of think.matchAll(BOUNDARY)) {
    const end = m.index!;
    if (think.slice(start, end).trim()) spans.push(trimSpan(think, start, end));
    start = end + m[0].length;
  }
  if (think.slice(start).trim()) spans.push(trimSpan(think, start, think.length));
  return spans;
}

function trimSpan(text: string, start: number, end: number): [number, number] {
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return [start, end];
}

const LAKE_PLACES = compile([
  [/\b(?:the )?(?:top|upper|first|uppermost|topmost) (?:row|edge|border)\b/g, ' <0_x> '],
  [/\b(?:the )?(?:bottom|lower|last|lowest|bottommost) (?:row|edge|border)\b/g, ' <last_x> '],
  [/\b(?:the )?(?:left|leftmost|first) (?:column|col|edge|border)\b/g, ' <x_0> '],
  [/\b(?:the )?(?:right|rightmost|last) (?:column|col|edge|border)\b/g, ' <x_last> '],
]);

const NO_CONVENTION: Convention = { xy: false, unclear: false };

/** The rules applied to a text (one sentence or several joined by SEP), before tokenising. */
function rewrite(text: string, env: EnvKind, conv: Convention): string {
  let raw = text;
  if (env === 'frozenlake') raw = raw.replace(/(?<![\w@(])G(?![\w(])/g, 'the goal');
  if (env !== 'bandit') {
    const names = SYMBOLS[env];
    raw = raw.replace(SYMBOL, (m, sym: string) => (names[sym] ? ` ${names[sym]} at ` : m));
    // numbered keys: "B1: r2c4", "T2=(5,5)", "H3 (1,1)"
    raw = raw.replace(/(?<![\w@])([BTHX])(\d)(?=\s*[:=@(]|\s+(?:at\s+)?[([r])/g, (_m, k: string, n: string) =>
      k === 'B' || k === 'X' ? ` box ${n} ` : k === 'T' ? (env === 'sokoban' ? ' target ' : ' ') : env === 'frozenlake' ? ' hole ' : ' ',
    );
  }
  // "(x, y) = (3, 1)": a tuple in the text's own order
  if (conv.xy) raw = raw.replace(/[([]\s*(\d+)\s*,\s*(\d+)\s*[)\]]/g, ' (row $2, col $1) ');
  raw = raw.replace(/\bx\s*=\s*(\d+)\s*,?\s*(?:and\s+)?y\s*=\s*(\d+)/gi, ' (row $2, col $1) ');
  // "R,R,U,U", "D, D, R": moves as letters (only in runs of two or more, so "U" alone stays a letter)
  raw = raw.replace(/\b[UDLR](?:\s*[,\s]\s*[UDLR]\b)+/g, (run) =>
    run.replace(/[UDLR]/g, (l) => ({ U: ' up ', D: ' down ', L: ' left ', R: ' right ' })[l]!),
  );
  let lowered = raw.toLowerCase().replace(NUMBER_WORD, (w) => String(NUMBER_WORDS[w]));
  if (env === 'frozenlake') lowered = applyRules(lowered, LAKE_PLACES);
  let s = applyRules(lowered, COMMON);
  if (env === 'sokoban') s = applyRules(s, SOKOBAN);
  else if (env === 'frozenlake')
    s = applyRules(s, LAKE)
      .replace(/<(\w+)_left>/g, '<$1_0>')
      .replace(/<(\w+)_right>/g, '<$1_last>');
  else s = s.replace(/~corner_\w+/g, ' ~place ');
  return s;
}

/** Tokens: each , : = alone, else runs of word characters and @ # + ~ < > ' - (anything else separates). */
const TOKEN = /[,:=]|[\w@#+~<>'-]+/g;
const tokenize = (s: string): string[] => s.match(TOKEN) ?? [];

export function normalizeSentence(text: string, env: EnvKind, conv: Convention = NO_CONVENTION): string[] {
  return tokenize(rewrite(text, env, conv));
}

/** Between sentences while the rules run on the whole text at once: no rule matches across it. */
const SEP = '\u0001';

export function sentences(think: string, env: EnvKind, conv: Convention = NO_CONVENTION): Sentence[] {
  const spans = splitSentences(think.replaceAll(SEP, ' '));
  // one pass of the rules over the whole text (a pass per sentence costs a regex scan per rule per sentence)
  const parts = rewrite(spans.map(([a, b]) => think.slice(a, b).replaceAll(SEP, ' ')).join(` ${SEP} `), env, conv).split(SEP);
  return spans.map((span, k) => ({ span, text: think.slice(span[0], span[1]), tokens: tokenize(parts[k] ?? '') }));
}
