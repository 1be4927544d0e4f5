import type { EpisodeEnv } from '../envs/source.js';
import type { ChatMessage, TextTokenizer } from '../tokenizer/types.js';

export interface PromptSettings {
  maxActionsPerTraj: number;
  /** The "Max response length" the prompt announces. */
  maxResponseWords: number;
  enableThink: boolean;
  actionSeparator: string;
  contextWindow: 'full' | 'last_k';
  lastKTurns: number;
}

export const FORMAT_THINK = '<think> [Your thoughts] </think> <answer> [your answer] </answer>';
export const FORMAT_ANSWER = '<answer> [your answer] </answer>';

/** RAGEN's system prompt: assistant preamble, instructions, symbol legend and action list (HEAD layout). */
export function systemPrompt(def: { legend: string | null }, env: EpisodeEnv, s: PromptSettings): string {
  let text = "You're a helpful assistant. " + env.instructions();
  if (def.legend) text += `\nThe meaning of each symbol in the state is:\n${def.legend}`;
  text += env.actionFormat ? `\nYour action is ${env.actionFormat}` : `\nYour available actions are:\n${env.actions.join(', ')}`;
  text += `\nYou can make up to ${s.maxActionsPerTraj} actions, separated by the action separator " ${s.actionSeparator} "\n`;
  return text;
}

/** One turn block, appended to the current user message. */
export function turnBlock(turn: number, observation: string, actionsLeft: number, s: PromptSettings, warning = ''): string {
  const format = s.enableThink ? FORMAT_THINK : FORMAT_ANSWER;
  return (
    `\nTurn ${turn}:\nState:\n${observation}\n${warning}You have ${actionsLeft} actions left. ` +
    `Always output: ${format} with no extra text. Strictly follow this format. Max response length: ${s.maxResponseWords} words (tokens).\n`
  );
}

export function rewardMessage(reward: number): string {
  return `Reward:\n${+reward.toFixed(4)}\n`;
}

/** A finished turn of the dialogue. */
export interface DialogueTurn {
  observation: string;
  actionsLeft: number;
  /** Assistant content as trained on: the canonical reply (or the raw reply when it did not parse). */
  reply: string;
  reward: number;
  warning?: string;
}

/**
 * Messages for the next prompt (or, with `next` undefined, the training dialogue): system, then
 * user turn blocks with each assistant reply and its "Reward:" line. With `last_k`, only the last
 * k finished turns are kept.
 */
export function buildMessages(
  system: string,
  turns: DialogueTurn[],
  s: PromptSettings,
  next?: { turn: number; observation: string; actionsLeft: number; warning?: string },
): ChatMessage[] {
  const kept = s.contextWindow === 'last_k' ? turns.slice(-s.lastKTurns) : turns;
  const firstTurn = turns.length - kept.length + 1;
  const messages: ChatMessage[] = [{ role: 'system', content: system }];
  let user = '';
  kept.forEach((t, i) => {
    user += turnBlock(firstTurn + i, t.observation, t.actionsLeft, s, t.warning);
    messages.push({ role: 'user', content: user });
    messages.push({ role: 'assistant', content: t.reply });
    user = rewardMessage(t.reward);
  });
  if (next) {
    user += turnBlock(next.turn, next.observation, next.actionsLeft, s, next.warning);
    messages.push({ role: 'user', content: user });
  }
  return messages;
}

/** Token ids of a generation prompt: the chat template with the generation prompt, then the `<think>` prefill. */
export function promptIds(tokenizer: TextTokenizer, messages: ChatMessage[], enableThink: boolean): number[] {
  return tokenizer.encode(tokenizer.applyChatTemplate(messages, { addGenerationPrompt: true }) + (enableThink ? '<think>' : '<answer>'));
}
