"""Plays a few Sokoban episodes with a scripted policy and tracks them in StarPO Studio.

    STARPO_URL=http://127.0.0.1:3001 STARPO_TOKEN=stp_... python3 clients/python/examples/scripted_sokoban.py

The policy plans with breadth-first search and writes a RAGEN-style reply each turn; its think
text states where the player, box and target are. Every third episode misreads the box's
position, so the dashboard's Diagnostics tab has something to flag. Only the observation text is
sent: the server rebuilds the boards from it.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections import deque
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import starpo  # noqa: E402

Cell = Tuple[int, int]
MOVES: Dict[str, Cell] = {"Up": (-1, 0), "Down": (1, 0), "Left": (0, -1), "Right": (0, 1)}
LEVELS = [
    ["######", "#P_O_#", "#_X__#", "#____#", "######"],
    ["######", "#____#", "#_OX_#", "#__P_#", "######"],
    ["#######", "#P____#", "#__X__#", "#__#O_#", "#######"],
    ["######", "#_P__#", "#_X__#", "#_O__#", "######"],
]


class Sokoban:
    """RAGEN's rules: push one box, -0.1 a step, +1 onto a target, +10 when solved."""

    def __init__(self, rows: List[str]) -> None:
        self.walls = {(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"}
        self.targets = {(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in "OS√"}
        self.boxes = {(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in "X√"}
        self.player = next((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in "PS")
        self.shape = (len(rows), len(rows[0]))

    @property
    def solved(self) -> bool:
        return self.boxes <= self.targets

    def render(self) -> str:
        def symbol(cell: Cell) -> str:
            if cell in self.walls:
                return "#"
            if cell == self.player:
                return "S" if cell in self.targets else "P"
            if cell in self.boxes:
                return "√" if cell in self.targets else "X"
            return "O" if cell in self.targets else "_"

        return "\n".join("".join(symbol((r, c)) for c in range(self.shape[1])) for r in range(self.shape[0]))

    def step(self, action: str) -> float:
        dr, dc = MOVES[action]
        dest = (self.player[0] + dr, self.player[1] + dc)
        reward = -0.1
        if dest in self.boxes:
            beyond = (dest[0] + dr, dest[1] + dc)
            if beyond in self.walls or beyond in self.boxes:
                return reward
            self.boxes = (self.boxes - {dest}) | {beyond}
            reward += (beyond in self.targets) - (dest in self.targets)
        elif dest in self.walls:
            return reward
        self.player = dest
        return reward + (10 if self.solved else 0)


def plan(env: Sokoban) -> List[str]:
    """Shortest action sequence that solves the level (breadth-first over player and boxes)."""
    start = (env.player, frozenset(env.boxes))
    seen = {start}
    queue = deque([(start, [])])
    while queue:
        (player, boxes), path = queue.popleft()
        if boxes <= env.targets:
            return path
        for name, (dr, dc) in MOVES.items():
            dest = (player[0] + dr, player[1] + dc)
            if dest in env.walls:
                continue
            moved = boxes
            if dest in boxes:
                beyond = (dest[0] + dr, dest[1] + dc)
                if beyond in env.walls or beyond in boxes:
                    continue
                moved = (boxes - {dest}) | {beyond}
            state = (dest, frozenset(moved))
            if state not in seen:
                seen.add(state)
                queue.append((state, path + [name]))
    return []


def think(env: Sokoban, actions: List[str], misread: bool) -> str:
    box = sorted(env.boxes)[0]
    target = sorted(env.targets)[0]
    if misread:  # a claim the board contradicts
        box = (box[0] + 1, box[1]) if (box[0] + 1, box[1]) not in env.walls else (box[0] - 1, box[1])
    return (f"I am at ({env.player[0]}, {env.player[1]}). The box is at ({box[0]}, {box[1]}) "
            f"and the target is at ({target[0]}, {target[1]}). I will go {' then '.join(a.lower() for a in actions)}.")


def play(level: List[str], misread: bool, max_turns: int = 5, per_turn: int = 2) -> Dict[str, object]:
    env = Sokoban(level)
    turns = []
    for _ in range(max_turns):
        observation = env.render()
        actions = plan(env)[:per_turn] or ["Up"]
        text = think(env, actions, misread)
        answer = " || ".join(actions)
        reward = sum(env.step(a) for a in actions)
        turns.append({"observation": observation, "rawReply": f"<think>{text}</think><answer>{answer}</answer>",
                      "think": text, "answer": answer, "actions": actions, "reward": reward, "done": env.solved})
        if env.solved:
            break
    return {"success": env.solved, "turns": turns}


def main(argv: Optional[List[str]] = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default=os.environ.get("STARPO_URL", "http://127.0.0.1:3001"))
    parser.add_argument("--token", default=os.environ.get("STARPO_TOKEN"))
    parser.add_argument("--name", default="scripted-sokoban")
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("an API token is needed: --token or STARPO_TOKEN (create one with POST /api/tokens)")
    run = starpo.init(args.url, args.token, name=args.name, env="sokoban", total_steps=args.steps,
                      config={"policy": "bfs-scripted", "max_turns": 5, "actions_per_turn": 2}, tags=["example"])
    for step in range(1, args.steps + 1):
        episodes = [play(level, misread=(step + i) % 3 == 0) for i, level in enumerate(LEVELS)]
        run.log_trajectories(episodes, step=step, split="val")
        run.log({"val/success": sum(e["success"] for e in episodes) / len(episodes),
                 "val/reward/mean": sum(sum(t["reward"] for t in e["turns"]) for e in episodes) / len(episodes)}, step=step)
    run.finish("succeeded")
    print(f"run {run.id}: {run.url}")
    return run.url


if __name__ == "__main__":
    main()
