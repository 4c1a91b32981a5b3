#!/usr/bin/env bash
# Installs the dependencies (if missing), configures and builds with a CMake preset.
# Usage: scripts/build.sh [preset [target...]]   (default: release, all targets)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
shift || true
bash scripts/install-deps.sh
cmake --preset "$preset" >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build --preset "$preset" -j "$(nproc)" "${targets[@]}"
