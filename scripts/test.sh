#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, and runs the whole test suite.
# Usage: scripts/test.sh [preset]   (default: release; CI uses the "ci" preset = -Werror)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-${RAMUS_PRESET:-release}}"
bash scripts/build.sh "$preset"
ctest --preset "$preset" -j "$(nproc)"
