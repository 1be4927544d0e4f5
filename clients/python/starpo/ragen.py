"""Turning RAGEN-style rollout records into this project's trajectories.

RAGEN's multi-turn prompt holds, after the system prompt, one block per turn::

    Turn 1:
    State:
    <observation text>
    You have 10 actions left. Always output: <think> ... </think> <answer> ... </answer> ...
    <assistant reply: <think>…</think><answer>Up || Left</answer>>
    Reward:
    -0.1

(chat-template markers such as ``<|im_start|>assistant`` may sit between them). The last reply
may be outside the prompt (verl's generations table: input, output, score).
"""
from __future__ import annotations

import re
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

_TURN = re.compile(r"Turn\s+(\d+)\s*:\s*\n", re.I)
_STATE = re.compile(r"^\s*State\s*:\s*\n", re.I)
# where the observation ends: RAGEN's per-turn warning, the format reminder, a chat marker or the reply
_OBS_END = re.compile(
    r"\n\s*(?:You have \d+ actions? left|No valid action provided previously|Always output:|<\|im_end\|>|<\|im_start\|>|<think>|<answer>)",
    re.I,
)
_THINK = re.compile(r"<think>(.*?)</think>", re.S | re.I)
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.S | re.I)
_REWARD = re.compile(r"Reward\s*:\s*\n?\s*(-?\d+(?:\.\d+)?(?:[eE]-?\d+)?)", re.I)
_CHAT_MARK = re.compile(r"<\|[^|>]*\|>(?:assistant|user|system)?\s*")
_ASSISTANT = re.compile(r"<\|im_start\|>\s*assistant\s*", re.I)
# RAGEN's per-turn instructions, which quote the reply format and so must not be read as a reply
_INSTRUCTION_LINE = re.compile(
    r"^.*(?:You have \d+ actions? left|No valid action provided previously|Always output:|Strictly follow this format).*$",
    re.I | re.M,
)


def parse_reply(reply: str, separator: str = "||") -> Dict[str, Any]:
    """think, answer, actions and formatOk of one raw reply (``<think>…</think><answer>…</answer>``)."""
    think = _THINK.search(reply)
    answer = _ANSWER.search(reply)
    answer_text = answer.group(1).strip() if answer else ""
    return {
        "rawReply": reply,
        "think": think.group(1).strip() if think else "",
        "answer": answer_text,
        "actions": [a.strip() for a in answer_text.split(separator) if a.strip()][:50] if answer_text else [],
        "formatOk": bool(think and answer),
    }


def _split_turns(prompt: str) -> List[Tuple[str, str, Optional[float]]]:
    """(observation, reply, reward or None) for each ``Turn k:`` block of a RAGEN dialogue."""
    marks = list(_TURN.finditer(prompt))
    turns = []
    for i, m in enumerate(marks):
        block = prompt[m.end(): marks[i + 1].start() if i + 1 < len(marks) else len(prompt)]
        block = _STATE.sub("", block, count=1)
        end = _OBS_END.search("\n" + block)
        observation = (block[: end.start() - 1] if end else block).strip("\n").rstrip()
        rest = block[len(observation):]
        assistant = _ASSISTANT.search(rest)
        rest = rest[assistant.end():] if assistant else _INSTRUCTION_LINE.sub("", rest)
        start = rest.find("<think>") if "<think>" in rest else rest.find("<answer>")
        reply = ""
        reward: Optional[float] = None
        if start >= 0:
            stop = rest.find("</answer>", start)
            reply_end = stop + len("</answer>") if stop >= 0 else len(rest)
            reply = _CHAT_MARK.sub("", rest[start:reply_end]).strip()
            r = _REWARD.search(rest[reply_end:])
            reward = float(r.group(1)) if r else None
        turns.append((observation, reply, reward))
    return turns


def trajectory_from_ragen(prompt: str, response: Optional[str] = None, rewards: Optional[Sequence[float]] = None,
                          score: Optional[float] = None, success: Optional[bool] = None, *,
                          group: Optional[int] = None, index_in_group: Optional[int] = None,
                          seed: Optional[int] = None, separator: str = "||") -> Dict[str, Any]:
    """One trajectory from a RAGEN record: the dialogue text (``Turn k:`` blocks), the last raw reply
    when it is not in the text, and rewards (per turn; else the ``Reward:`` lines; else ``score`` on
    the last turn). ``success`` defaults to a positive total reward.
    """
    blocks = _split_turns(prompt)
    if not blocks:
        blocks = [(prompt.strip(), "", None)]
    if response is not None:
        obs, reply, reward = blocks[-1]
        if "</answer>" in reply:
            blocks.append(("", response, None))
        else:
            # the prompt ends with the prefilled start of this reply (RAGEN prefills "<think>")
            prefix = reply if reply and not response.lstrip().startswith(reply.strip()) else ""
            blocks[-1] = (obs, prefix + response, reward)
    turns = []
    for i, (observation, reply, reward) in enumerate(blocks):
        turn = parse_reply(reply, separator)
        turn["observation"] = observation
        if rewards is not None and i < len(rewards):
            turn["reward"] = float(rewards[i])
        else:
            turn["reward"] = float(reward) if reward is not None else 0.0
        turns.append(turn)
    if rewards is None and score is not None and all(r is None for _, _, r in blocks):
        turns[-1]["reward"] = float(score)
    turns[-1]["done"] = True
    total = sum(t["reward"] for t in turns)
    out: Dict[str, Any] = {"success": bool(success) if success is not None else total > 0, "turns": turns}
    if group is not None:
        out["group"] = group
    if index_in_group is not None:
        out["indexInGroup"] = index_in_group
    if seed is not None:
        out["seed"] = seed
    return out


def trajectories_from_generations(samples: Iterable[Sequence[Any]], success_threshold: float = 0.0) -> List[Dict[str, Any]]:
    """verl's ``val/generations`` samples, ``(input_text, output_text, score)`` triples, as trajectories
    (success = score above ``success_threshold``), numbered in order."""
    out = []
    for i, (prompt, response, score) in enumerate(samples):
        t = trajectory_from_ragen(str(prompt), str(response), score=float(score), index_in_group=i)
        t["success"] = float(score) > success_threshold
        out.append(t)
    return out
