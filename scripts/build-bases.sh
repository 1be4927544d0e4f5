#!/usr/bin/env bash
# Builds the committed warm-start bases (models/bases/<env>-tiny) that every preset starts from by default,
# both pretrains side by side (one core each), then writes their checksums. Reproducible: fixed seeds.
# Dialogue counts and wall times: docs/results/bases.md.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-models/bases}
LOG=${LOG:-docs/results/bases}
SOKOBAN_DIALOGUES=${SOKOBAN_DIALOGUES:-16000}
FROZENLAKE_DIALOGUES=${FROZENLAKE_DIALOGUES:-6000}
STARPO="node packages/trainer/dist/cli/main.js"
# OpenBLAS picks its GEMM kernels for the CPU, and their blocking decides the order of the sums: pinned
# to the AVX2 ones every x86-64 server of the last decade has, two machines build the same bytes
# (with the same OpenBLAS release). Each log's first line names the kernels used.
if [ "$(uname -m)" = x86_64 ]; then export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Haswell}; fi
npx turbo run build --filter=@starpo/trainer... --output-logs=errors-only >/dev/null
mkdir -p "$OUT" "$LOG"

# the clean teacher's dialogues, then one on-policy round: the model plays, the teacher labels the states it visited
$STARPO pretrain --env sokoban --config tiny --dialogues "$SOKOBAN_DIALOGUES" --epochs 1 --dagger-rounds 1 --val 64 --seed 0 \
  --backend wasm --out "$OUT/sokoban-tiny" >"$LOG/pretrain-sokoban.log" 2>&1 &
SOKOBAN=$!
$STARPO pretrain --env frozenlake --config tiny --dialogues "$FROZENLAKE_DIALOGUES" --epochs 1 --dagger-rounds 1 --val 64 --seed 0 \
  --backend wasm --out "$OUT/frozenlake-tiny" >"$LOG/pretrain-frozenlake.log" 2>&1 &
FROZENLAKE=$!
wait $SOKOBAN
wait $FROZENLAKE
tail -n 6 "$LOG/pretrain-sokoban.log" "$LOG/pretrain-frozenlake.log"
(cd "$OUT" && sha256sum */*) | tee "$LOG/SHA256SUMS"
