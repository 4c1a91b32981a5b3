#!/usr/bin/env bash
# Issue 35's validation set from outside data: meshes of Debian's CGAL demo data (libcgal-demo,
# installed here when missing) precomputed with the automatic partition and as one domain; the
# lines of precompute's check against the full FEM are printed per object
# (docs/VALIDATION.md, "Outside objects, checked"). Usage: scripts/outside_validation.sh [build]
set -euo pipefail
cd "$(dirname "$0")/.."
ramus="${1:-build/release}/tools/ramus"
data=/usr/share/doc/libcgal-dev/data.tar.gz
if [ ! -f "$data" ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get install -y -qq --no-install-recommends libcgal-demo >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar xzf "$data" -C "$work" data/meshes/cactus.off data/meshes/elephant.off data/meshes/dino.off
for object in cactus elephant dino; do
  # Each stands along +y: anchored below 3 % of its height, gravity along -y, E = 5 MPa.
  /usr/bin/python3 - "$work" "$object" <<'PY'
import json, sys
work, name = sys.argv[1], sys.argv[2]
mesh = f"{work}/data/meshes/{name}.off"
rows = [l.split("#")[0].split() for l in open(mesh)]
rows = [r for r in rows if r]
nv = int(rows[1][0])
points = [[float(x) for x in r[:3]] for r in rows[2:2 + nv]]
lo = [min(p[i] for p in points) for i in range(3)]
hi = [max(p[i] for p in points) for i in range(3)]
base = lo[1] + 0.03 * (hi[1] - lo[1])
spec = {"mesh": mesh,
        "material": {"youngs_modulus": 5e6, "poisson_ratio": 0.4, "density": 1000},
        "fixed": [{"box": {"min": [lo[0] - 1, lo[1] - 1, lo[2] - 1], "max": [hi[0] + 1, base, hi[2] + 1]}}],
        "simulation": {"time_step": 0.01, "gravity": [0, -9.81, 0]},
        "domains": {"partition": "automatic", "total_r": 120}}
json.dump(spec, open(f"{work}/{name}.json", "w"))
del spec["domains"]
spec["reduction"] = {"linear_modes": 20, "r": 40}
json.dump(spec, open(f"{work}/{name}_one.json", "w"))
PY
  for variant in "" _one; do
    echo "== $object${variant:+ (one domain, r = 40)}"
    "$ramus" precompute "$work/$object$variant.json" -o "$work/$object$variant.h5" 2>&1 |
      grep -E "^(mesh|domains|improve|check) |note: the check" || true
  done
done
