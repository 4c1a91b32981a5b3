// Small meshes built in code for the tests (no generator dependency).
#pragma once

#include <Eigen/Core>

#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus::test {

/// Box [0,lx]x[0,ly]x[0,lz] of nx*ny*nz cells, each split into 6 tets around the main diagonal.
inline TetMesh box_mesh(int nx, int ny, int nz, double lx, double ly, double lz) {
  TetMesh mesh;
  auto id = [&](int i, int j, int k) { return i + (nx + 1) * (j + (ny + 1) * k); };
  mesh.rest_positions.resize((nx + 1) * (ny + 1) * (nz + 1), 3);
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i)
        mesh.rest_positions.row(id(i, j, k)) << lx * i / nx, ly * j / ny, lz * k / nz;
  // Kuhn split: the 6 monotone lattice paths from corner 000 to corner 111.
  const int paths[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  mesh.tets.resize(6 * nx * ny * nz, 4);
  int t = 0;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        for (const auto& path : paths) {
          int c[3] = {i, j, k};
          int v[4];
          v[0] = id(c[0], c[1], c[2]);
          for (int s = 0; s < 3; ++s) {
            ++c[path[s]];
            v[s + 1] = id(c[0], c[1], c[2]);
          }
          mesh.tets.row(t) << v[0], v[1], v[2], v[3];
          if (signed_tet_volume(mesh.rest_positions, mesh.tets, t) < 0)
            mesh.tets.row(t) << v[0], v[2], v[1], v[3];
          ++t;
        }
  return mesh;
}

}  // namespace ramus::test
