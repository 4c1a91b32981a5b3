#!/usr/bin/env python3
"""Writes data/contact/bunny.msh: a voxel 'bunny' (body, head turned to one side, two ears, a
tail and one front foot) for the sliding scene of the energy-stabilized midpoint paper's Fig. 14.
There is no scanned bunny in the repository; this one is built from ellipsoids so that its base
and mass are asymmetric like the paper's. Gmsh 2.2 ASCII, hexahedra (ramus splits each into six
tets, conforming). Units: metres; the base is at z = 0, the body faces +x.

    python3 scripts/make_voxel_bunny.py > data/contact/bunny.msh
"""

CELL = 0.015
# (centre, semi-axes) of each ellipsoid; a cell is solid when its centre is inside one of them
# and above the floor.
ELLIPSOIDS = [
    ((0.0, 0.0, 0.03), (0.07, 0.05, 0.05)),         # body, its base flattened by the floor
    ((0.06, 0.015, 0.075), (0.032, 0.03, 0.03)),    # head, turned towards +y
    ((0.05, 0.0, 0.12), (0.012, 0.015, 0.035)),     # ear
    ((0.065, 0.032, 0.12), (0.012, 0.015, 0.035)),  # ear
    ((-0.075, 0.0, 0.04), (0.02, 0.02, 0.02)),      # tail
    ((0.05, -0.045, 0.01), (0.035, 0.018, 0.015)),  # front foot, out to one side
]


def solid(x, y, z):
    if z < 0:
        return False
    return any(sum(((p - c) / s) ** 2 for p, c, s in zip((x, y, z), centre, semi)) <= 1
               for centre, semi in ELLIPSOIDS)


def main():
    lo = (-0.105, -0.075, 0.0)
    n = (int(0.21 / CELL), int(0.15 / CELL), int(0.165 / CELL))
    cells = [(i, j, k) for i in range(n[0]) for j in range(n[1]) for k in range(n[2])
             if solid(lo[0] + (i + 0.5) * CELL, lo[1] + (j + 0.5) * CELL, lo[2] + (k + 0.5) * CELL)]
    nodes = {}

    def node(i, j, k):
        return nodes.setdefault((i, j, k), len(nodes) + 1)

    hexes = []
    for i, j, k in cells:
        corners = [(i, j, k), (i + 1, j, k), (i + 1, j + 1, k), (i, j + 1, k),
                   (i, j, k + 1), (i + 1, j, k + 1), (i + 1, j + 1, k + 1), (i, j + 1, k + 1)]
        hexes.append([node(*c) for c in corners])
    print("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes")
    print(len(nodes))
    for (i, j, k), index in sorted(nodes.items(), key=lambda item: item[1]):
        print(index, f"{lo[0] + i * CELL:.6g}", f"{lo[1] + j * CELL:.6g}", f"{lo[2] + k * CELL:.6g}")
    print("$EndNodes\n$Elements")
    print(len(hexes))
    for e, corners in enumerate(hexes, 1):
        print(e, 5, 2, 1, 1, *corners)
    print("$EndElements")


main()
