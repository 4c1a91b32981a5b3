#!/usr/bin/env bash
# The README's main command: builds Ramus, then runs the spec data/plant/plant_full.json:
# the bundled plant surface (data/plant/plant.obj, one OBJ group per part) is tetrahedralized
# with TetGen and simulated in full space (StVK, backward Euler as minimization, Newton with
# line search) under gravity with a pull on a leaf; a ParaView series goes to out/plant_full.pvd
# and a summary is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh release ramus
mkdir -p out
./build/release/tools/ramus simulate-full data/plant/plant_full.json -o out/plant_full.pvd
echo "Open out/plant_full.pvd in ParaView to watch the plant."
