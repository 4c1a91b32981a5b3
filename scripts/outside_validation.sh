#!/usr/bin/env bash
# Issue 35's validation set from outside data: meshes of Debian's CGAL demo data (libcgal-demo)
# and two of Gmsh's demos (gmsh-doc, meshed by gmsh; all installed here when missing)
# precomputed with the automatic partition and as one domain; the lines of precompute's check
# against the full FEM and its rounds are printed per object (docs/VALIDATION.md, "Outside
# objects, checked"). Usage: scripts/outside_validation.sh [build]
set -euo pipefail
cd "$(dirname "$0")/.."
ramus="${1:-build/release}/tools/ramus"
data=/usr/share/doc/libcgal-dev/data.tar.gz
demos=/usr/share/doc/gmsh-doc/doc/gmsh/demos
if [ ! -f "$data" ] || [ ! -d "$demos" ] || ! command -v gmsh >/dev/null; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get install -y -qq --no-install-recommends libcgal-demo gmsh gmsh-doc >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar xzf "$data" -C "$work" data/meshes/cactus.off data/meshes/elephant.off data/meshes/dino.off
# Gmsh's neuron (soma and dendrites as conforming fragments: op 4) and five-lobed plate (extruded
# hexahedra and prisms, split into tets when read): the neuron, 31 units tall along z, as 31 cm
# held below 3 % of its height; the plate, 4 units across, as 20 cm held at its hub; gravity -z.
gmsh -3 -setnumber op 4 -format msh41 "$demos/boolean/neuron.geo" -o "$work/neuron.msh" >/dev/null
gmsh -3 -format msh41 "$demos/simple_geo/piece-extr-rec.geo" -o "$work/plate.msh" >/dev/null
/usr/bin/python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
material = {"youngs_modulus": 5e6, "poisson_ratio": 0.4, "density": 1000}
objects = {"neuron": (0.01, {"min": [-100, -100, -100], "max": [100, 100, -8 + 0.03 * 31]}),
           "plate": (0.05, {"min": [-0.3, -0.3, -1], "max": [0.3, 0.3, 1]})}
for name, (units, box) in objects.items():
    spec = {"mesh": f"{work}/{name}.msh", "units": units, "material": material,
            "fixed": [{"box": box}], "simulation": {"time_step": 0.01, "gravity": [0, 0, -9.81]},
            "domains": {"partition": "automatic", "total_r": 120}}
    json.dump(spec, open(f"{work}/{name}.json", "w"))
    del spec["domains"]
    spec["reduction"] = {"linear_modes": 20, "r": 40}
    json.dump(spec, open(f"{work}/{name}_one.json", "w"))
PY
for object in cactus elephant dino neuron plate; do
  # Each CGAL object stands along +y: anchored below 3 % of its height, gravity along -y.
  [ -f "$work/$object.json" ] || /usr/bin/python3 - "$work" "$object" <<'PY'
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
