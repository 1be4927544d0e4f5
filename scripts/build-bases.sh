#!/usr/bin/env bash
# Builds the committed warm-start bases (models/bases/<env>-tiny) that every preset starts from by default,
# both side by side (one core each), then writes their checksums. Reproducible: fixed seeds, pinned kernels.
# Dialogue counts and wall times: docs/results/bases.md. BASES="sokoban" rebuilds one of them.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-models/bases}
LOG=${LOG:-docs/results/bases}
BASES=${BASES:-sokoban frozenlake}
SOKOBAN_DIALOGUES=${SOKOBAN_DIALOGUES:-16000}
SOKOBAN_MORE_DIALOGUES=${SOKOBAN_MORE_DIALOGUES:-8000}
FROZENLAKE_DIALOGUES=${FROZENLAKE_DIALOGUES:-6000}
STARPO="node packages/trainer/dist/cli/main.js"
# OpenBLAS picks its GEMM kernels for the CPU, and their blocking decides the order of the sums: pinned
# to the AVX2 ones every x86-64 server of the last decade has, two machines build the same bytes
# (with the same OpenBLAS release). Each log's first line names the kernels used.
if [ "$(uname -m)" = x86_64 ]; then export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Haswell}; fi
npx turbo run build --filter=@starpo/trainer... --output-logs=errors-only >/dev/null
mkdir -p "$OUT" "$LOG"

# Sokoban, three stages (docs/results/2026-12-08-imitation-then-rl.md §3): the clean teacher's dialogues and
# one on-policy round (the model plays, the teacher labels the states it visited: well-formed replies,
# grounded positions); fresh clean dialogues from that model (the round at the full rate cost success,
# the dialogues win it back); a last on-policy round at a quarter of the rate (the dialogues cost format,
# the round restores it without the loss)
sokoban() {
  local round="$OUT/sokoban-tiny.round" more="$OUT/sokoban-tiny.more"
  $STARPO pretrain --env sokoban --config tiny --dialogues "$SOKOBAN_DIALOGUES" --epochs 1 --dagger-rounds 1 --val 64 --seed 0 \
    --backend wasm --out "$round"
  $STARPO pretrain --env sokoban --init "$round" --dialogues "$SOKOBAN_MORE_DIALOGUES" --epochs 1 --val 64 --seed 100 \
    --backend wasm --out "$more"
  $STARPO pretrain --env sokoban --init "$more" --dialogues 0 --dagger-rounds 1 --lr 5e-4 --val 64 --seed 200 \
    --backend wasm --out "$OUT/sokoban-tiny"
  rm -rf "$round" "$more"
}
frozenlake() {
  $STARPO pretrain --env frozenlake --config tiny --dialogues "$FROZENLAKE_DIALOGUES" --epochs 1 --dagger-rounds 1 --val 64 --seed 0 \
    --backend wasm --out "$OUT/frozenlake-tiny"
}

pids=()
for env in $BASES; do
  "$env" >"$LOG/pretrain-$env.log" 2>&1 &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
for env in $BASES; do tail -n 6 "$LOG/pretrain-$env.log"; done
(cd "$OUT" && sha256sum */*) | tee "$LOG/SHA256SUMS"
