"""gymnasium's FrozenLake served to StarPO Studio (docs/environments.md). Run: python frozenlake_server.py"""

from starpo.env_server import serve

MAP = ["SFFF", "FHFH", "FFFH", "HFFG"]
ACTIONS = ["Left", "Down", "Right", "Up"]  # gymnasium's action ids 0..3
MOVES = [(0, -1), (1, 0), (0, 1), (-1, 0)]

try:
    import gymnasium
except ImportError:  # a still lake of the same map, so the example runs without gymnasium
    gymnasium = None


class FrozenLake:
    actions = ACTIONS

    def reset(self, seed, config):
        self.pos = 0
        if gymnasium:
            self.gym = gymnasium.make("FrozenLake-v1", desc=MAP, is_slippery=bool(config.get("slippery", False)))
            self.pos, _ = self.gym.reset(seed=seed)
        return self.render()

    def step(self, action):
        a = [x.lower() for x in ACTIONS].index(action.strip().lower())
        if gymnasium:
            self.pos, reward, done, truncated, _ = self.gym.step(a)
        else:
            r, c = divmod(self.pos, 4)
            r, c = min(3, max(0, r + MOVES[a][0])), min(3, max(0, c + MOVES[a][1]))
            self.pos = 4 * r + c
            reward, done, truncated = float(MAP[r][c] == "G"), MAP[r][c] in "HG", False
        return self.render(), reward, done or truncated, reward > 0

    def render(self):
        r, c = divmod(self.pos, 4)
        holes = ", ".join(f"({i}, {j})" for i, row in enumerate(MAP) for j, x in enumerate(row) if x == "H")
        grid = ["".join(("P" if (i, j) == (r, c) else "_" if x in "SF" else "O" if x == "H" else "G")
                        for j, x in enumerate(row)) for i, row in enumerate(MAP)]
        head = f"Coordinates: \nBoard size: 4 rows x 4 cols (zero-indexed).\nPlayer: ({r}, {c})\nGoal: (3, 3)\nHoles: {holes}"
        return head + "\nGrid Map: \n" + "\n".join(grid)


if __name__ == "__main__":
    serve(FrozenLake, name="frozenlake-gym", limits={"maxTurns": 5, "maxActionsPerTurn": 5, "maxActionsPerTraj": 10},
          instructions="You are solving the FrozenLake puzzle. Forbid the whole and go to the target. Example answer "
                       "format: <think>To forbid the hole and go to the target, I should go left then go up.</think>"
                       "<answer>Left || Up</answer>",
          legend="P: player, _: empty, O: hole, G: goal")
