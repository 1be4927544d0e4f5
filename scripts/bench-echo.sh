#!/usr/bin/env bash
# Echo-trap comparison in miniature (the paper: vanilla StarPO collapses, StarPO-S delays it):
# the same warm-start base and budget, an aggressive learning rate, early stopping off so the
# whole trajectory of each run is visible. ARM=vanilla|starpo-s (default: both, one after the other).
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${BASE:-.data/bases/sokoban-coord-tiny}  # bench:learn's base
OUT=${OUT:-docs/results/echo-trap}
MINUTES=${MINUTES:-45}
# STEPS caps the steps of each arm (default 300: the time limit decides)
STARPO="node packages/trainer/dist/cli/main.js"
# The paper's reward (the environment's own, no solver shaping: REWARD_SHAPING=solver_distance for quick-cpu's)
# The paper's GRPO (group std, token-mean, one epoch, T 1) with an entropy bonus and a constant lr, pinned so that the comparison does not follow quick-cpu's own settings (docs/results/echo-trap.md).
COMMON="algorithm.advEstimator=grpo algorithm.grpoNormByStd=true rollout.temperature=1 ppo.lossAggMode=token-mean ppo.epochs=1 rollout.envGroups=4 rollout.groupSize=8 rollout.maxNewTokens=64 rollout.validation.size=16 rollout.validation.every=4 ppo.actorLr=2e-3 ppo.miniBatchSize=32 earlyStopping.enabled=false ppo.entropyCoef=0.001 ppo.lrSchedule.type=constant env.config.rewardShaping=${REWARD_SHAPING:-none}"
VANILLA="filter.ratio=1 ppo.clipRatioHigh=0.2 ppo.kl.type=k1 ppo.kl.coef=0.001 ppo.kl.in=loss"
STARPO_S="filter.metric=std filter.ratio=0.25 ppo.clipRatioHigh=0.28 ppo.kl.coef=0"
[ -f "$BASE/model.safetensors" ] || { echo "no base model at $BASE: run npm run bench:learn first (it pretrains one)"; exit 1; }
run() { # name, overrides
  rm -rf "$OUT/$1"
  $STARPO train --preset quick-cpu --env sokoban --base "$BASE" --steps "${STEPS:-300}" --time-limit "$MINUTES" --out "$OUT/$1" --set $COMMON $2
  rm -rf "$OUT/$1/checkpoints" "$OUT/$1/trajectories.jsonl"
}
case "${ARM:-both}" in
  vanilla) run vanilla "$VANILLA" ;;
  starpo-s) run starpo-s "$STARPO_S" ;;
  both) run vanilla "$VANILLA"; run starpo-s "$STARPO_S" ;;
esac
if [ -f "$OUT/vanilla/metrics.jsonl" ] && [ -f "$OUT/starpo-s/metrics.jsonl" ]; then
  node scripts/plot-metrics.mjs --out "$OUT/echo-trap.png" --title "Echo trap: vanilla StarPO (GRPO) vs StarPO-S, Sokoban 6×6, starpo-tiny" \
    --metrics train/reward/mean,rollout/in_group_reward_std,train/entropy,val/success,train/success,train/well_formed_rate \
    vanilla="$OUT/vanilla/metrics.jsonl" starpo-s="$OUT/starpo-s/metrics.jsonl"
fi
