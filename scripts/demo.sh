#!/usr/bin/env bash
# The README's main command: builds Ramus, then
#  1. precomputes the bundled plant (data/plant/plant.json: plant.obj tetrahedralized by TetGen,
#     cut into 14 domains by its OBJ groups, r-hat = 200 modes) into out/plant.h5, and
#  2. runs the real-time substructured simulation on it (Algorithm 1: frames, system and interface
#     forces, SBDF2 per domain by default) under gravity with a pull on the stem, writing a
#     ParaView series to out/plant.pvd and printing the cost per step;
#  3. the paper's oak as an assembly (data/oak/oak.json from `ramus generate tree`: 7 part
#     meshes reduced once, placed 1,436 times) in its wind: out/oak.h5, 300 steps timed (add
#     `-o out/oak.pvd` for ParaView: 31 frames of 54,398 vertices, about 390 MB, and
#     out/oak_surface.pvd: the 1,394 leaf blades embedded in the leaves' tets).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh release ramus
mkdir -p out
./build/release/tools/ramus precompute data/plant/plant.json -o out/plant.h5
./build/release/tools/ramus simulate out/plant.h5 -o out/plant.pvd
./build/release/tools/ramus precompute data/oak/oak.json -o out/oak.h5
./build/release/tools/ramus simulate out/oak.h5
echo "Open out/plant.pvd (tets, cell field 'domain' colours the domains) or out/plant_surface.pvd (the embedded surface) in ParaView."
