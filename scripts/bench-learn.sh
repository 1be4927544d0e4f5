#!/usr/bin/env bash
# Learning benchmark (goal: the quick-cpu preset raises validation success within 60 minutes):
# pretrain a tiny Sokoban base if missing, then train with quick-cpu for at most 60 minutes and plot.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${BASE:-.data/bases/sokoban-coord-tiny}  # pretrained on quick-cpu's Sokoban observation (grid_coord)
OUT=${OUT:-docs/results/learn-quick-cpu/bench-learn}  # its own folder: runs/ and curves.png beside it hold the documented comparison
MINUTES=${MINUTES:-60}
WORKERS=${WORKERS:-auto}  # compute threads (one per core)
SET=${SET:-}  # extra config overrides, e.g. SET="ppo.actorLr=1e-3 ppo.epochs=1"
STARPO="node packages/trainer/dist/cli/main.js"
npm run build -w @starpo/trainer >/dev/null
[ -f "$BASE/model.safetensors" ] || $STARPO pretrain --env sokoban --config tiny --dialogues 1200 --epochs 2 --out "$BASE"
rm -rf "$OUT"
$STARPO train --preset quick-cpu --env sokoban --base "$BASE" --time-limit "$MINUTES" --workers "$WORKERS" --out "$OUT" ${SET:+--set $SET}
node scripts/plot-metrics.mjs --out "$OUT/curves.png" --title "quick-cpu, Sokoban 6×6 (starpo-tiny, wasm, 2 cores)" \
  --metrics val/success,train/success,train/num_actions,train/well_formed_rate,train/entropy,rollout/in_group_reward_std \
  quick-cpu="$OUT/metrics.jsonl"
# The in-run validations use 64 seeds (± ~6 points); base and final policy again on 256 seeds (± ~3), after the hour.
$STARPO eval --model "$BASE" --episodes 256 --workers "$WORKERS" --json "$OUT/eval-base.json"
$STARPO eval --model "$(ls -d "$OUT"/checkpoints/step-* | tail -1)" --episodes 256 --workers "$WORKERS" --json "$OUT/eval-final.json"
rm -rf "$OUT/checkpoints" "$OUT/trajectories.jsonl" # large; the curve and metrics are the result
