#!/usr/bin/env bash
# Builds the GPU check bundle (.data/gpu-check/gpu-check.tar, under 64 MiB): see packages/trainer/scripts/gpu-check.mjs.
# On a machine with an NVIDIA GPU: tar -xf gpu-check.tar && OUT=/tmp/gpu-check gpu-check/run.sh
# Dry run here (wasm, tiny sizes): node .data/gpu-check/gpu-check/gpu-run.js --dry-run
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build -w @starpo/trainer >/dev/null
node packages/trainer/scripts/gpu-check.mjs "$@"
