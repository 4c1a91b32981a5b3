#include "render_surface_checks.h"

#include <cmath>
#include <cstdio>

namespace ramus {

namespace {

// |Σ barycentric - 1| allowed of an embedded vertex (as the model's embedded surface).
constexpr double kBarycentricSumTolerance = 1e-6;

std::string dataset_path(int k, const char* name) {
  return "dataset /parts/part_" + std::to_string(k) + "/render_surface/" + name;
}

}  // namespace

std::string part_render_surface_problem(const ReducedPart& part, int k) {
  const PartRenderSurface& s = part.render_surface;
  const Eigen::Index S = s.size();
  if (S == 0) {
    if (s.triangles.rows() != 0)
      return dataset_path(k, "rest_positions") + ": no vertices but " +
             std::to_string(s.triangles.rows()) + " triangles";
    return "";
  }
  // Triangles on its own vertices, three distinct corners each.
  for (Eigen::Index f = 0; f < s.triangles.rows(); ++f) {
    for (int c = 0; c < 3; ++c)
      if (s.triangles(f, c) < 0 || s.triangles(f, c) >= S)
        return dataset_path(k, "triangles") + ": triangle " + std::to_string(f) +
               " references vertex " + std::to_string(s.triangles(f, c)) + ", but there are " +
               std::to_string(S) + " vertices";
    if (s.triangles(f, 0) == s.triangles(f, 1) || s.triangles(f, 1) == s.triangles(f, 2) ||
        s.triangles(f, 0) == s.triangles(f, 2))
      return dataset_path(k, "triangles") + ": triangle " + std::to_string(f) + " repeats a vertex";
  }
  // Each vertex in one of the part's tets, with weights summing to 1.
  for (Eigen::Index v = 0; v < S; ++v) {
    if (s.tet(v) < 0 || s.tet(v) >= part.tets.rows())
      return dataset_path(k, "tet") + ": entry " + std::to_string(v) + " references tet " +
             std::to_string(s.tet(v)) + ", but the part has " + std::to_string(part.tets.rows()) +
             " tets";
    const double sum = s.barycentric.row(v).sum();
    if (!(std::abs(sum - 1) <= kBarycentricSumTolerance)) {
      char text[32];
      std::snprintf(text, sizeof(text), "%.9g", sum);
      return dataset_path(k, "barycentric") + ": row " + std::to_string(v) + " sums to " + text +
             ", not 1";
    }
  }
  return "";
}

}  // namespace ramus
