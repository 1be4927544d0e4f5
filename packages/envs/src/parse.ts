/** Result of parsing one model reply in the `<think>…</think><answer>…</answer>` format. */
export interface ParsedReply {
  /** The reply matched the format regex. */
  formatOk: boolean;
  think: string;
  /** The answer block's content, trimmed, special tokens removed. */
  answer: string;
  /** Action strings from the answer: split on `||`, trimmed, empties removed, first `maxActionsPerTurn` kept. */
  parsedActions: string[];
  /** The parsed actions that name a known action, rewritten to the canonical name, in order. */
  validActions: string[];
  /** The parsed actions that name no known action. */
  invalidActions: string[];
  /** Canonical rewrite used for training: `<think>…</think><answer>a || b</answer>`, or the raw text when the format failed. */
  canonical: string;
  /** The format penalty applies: some parsed action was invalid, or none was valid. */
  penalized: boolean;
}

export interface ParseOptions {
  /** Canonical action names; matched case-insensitively. */
  actions: readonly string[];
  /** Every parsed action is valid as written (an environment whose actions are free text). */
  anyAction?: boolean;
  maxActionsPerTurn: number;
  /** Expect a `<think>` block (default true); false parses `<answer>` alone. */
  enableThink?: boolean;
  actionSeparator?: string;
}

const THINK_ANSWER = /<think>([\s\S]*?)<\/think>\s*<answer>([\s\S]*?)<\/answer>/;
const ANSWER_ONLY = /<answer>([\s\S]*?)<\/answer>/;
/** Chat special tokens such as `<|im_end|>` are removed from think and answer, as RAGEN does. */
const SPECIAL_TOKEN = /<\|[^|>]*\|>/g;

/** RAGEN's reply parser (`_parse_response`), shared by the trainer and the dashboard. */
export function parseReply(text: string, opts: ParseOptions): ParsedReply {
  const sep = opts.actionSeparator ?? '||';
  const enableThink = opts.enableThink ?? true;
  const match = (enableThink ? THINK_ANSWER : ANSWER_ONLY).exec(text);
  if (!match) {
    return {
      formatOk: false,
      think: '',
      answer: '',
      parsedActions: [],
      validActions: [],
      invalidActions: [],
      canonical: text,
      penalized: true,
    };
  }
  const think = enableThink ? match[1]!.replace(SPECIAL_TOKEN, '').trim() : '';
  const answerRaw = (enableThink ? match[2]! : match[1]!).replace(SPECIAL_TOKEN, '').trim();
  const parsedActions = answerRaw
    .split(sep)
    .map((a) => a.trim())
    .filter((a) => a.length > 0)
    .slice(0, Math.max(0, opts.maxActionsPerTurn));
  const lookup = new Map(opts.actions.map((a) => [a.toLowerCase(), a]));
  const validActions: string[] = [];
  const invalidActions: string[] = [];
  for (const a of parsedActions) {
    const canonicalName = opts.anyAction ? a : lookup.get(a.toLowerCase());
    if (canonicalName) validActions.push(canonicalName);
    else invalidActions.push(a);
  }
  const kept = parsedActions.join(` ${sep} `);
  const canonical = enableThink ? `<think>${think}</think><answer>${kept}</answer>` : `<answer>${kept}</answer>`;
  return {
    formatOk: true,
    think,
    answer: answerRaw,
    parsedActions,
    validActions,
    invalidActions,
    canonical,
    penalized: invalidActions.length > 0 || validActions.length === 0,
  };
}
