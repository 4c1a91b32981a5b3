// The consistency rules of a model (docs/FORMAT.md, "Guarantees of the writer and the reader"),
// shared by the reader and the writer: find_model_inconsistency and its per-domain checks.
#include <Eigen/LU>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "model_fields.h"
#include "model_scale_checks.h"
#include "ramus/runtime/io/model_file.h"
#include "render_surface_checks.h"

namespace ramus {

namespace {

// Tolerances of the consistency rules (docs/FORMAT.md, "Guarantees of the writer and the reader").
constexpr double kRotationTolerance = 1e-6;     // max |RᵀR - I| of a stored rotation
constexpr double kBarycentricTolerance = 1e-6;  // |Σ barycentric - 1| of an embedded vertex
constexpr double kSubtreeMassTolerance = 1e-9;  // subtree mass >= own mass (1 - this)
constexpr double kFrameOriginTolerance = 1e-9;  // relative to the size of the coordinates

std::string shape_text(std::vector<Eigen::Index> shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    out += (i > 0 ? ", " : "") + std::to_string(shape[i]);
  }
  return out + ")";
}

std::string cell_text(Eigen::Index i, Eigen::Index j, bool matrix) {
  return matrix ? "(" + std::to_string(i) + ", " + std::to_string(j) + ")" : std::to_string(i);
}

// A floating-point value as a message shows it: enough digits, no trailing zeros.
std::string number_text(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", x);
  return text;
}

std::string vector_text(const Eigen::Vector3d& v) {
  return "(" + number_text(v(0)) + ", " + number_text(v(1)) + ", " + number_text(v(2)) + ")";
}

// Collects the first problem found; every check is a no-op once one is recorded.
class Checker {
 public:
  explicit Checker(std::string group) : group_(std::move(group)) {}
  bool ok() const { return problem.empty(); }
  std::string dataset(const std::string& name) const { return group_ + "/" + name; }
  const std::string& group() const { return group_; }

  // Records `message` (a whole sentence naming its dataset) unless a problem is known already.
  void fail(const std::string& message) {
    if (ok()) problem = message;
  }

  template <typename Derived>
  void shape(const std::string& name, const Eigen::DenseBase<Derived>& m,
             std::vector<Eigen::Index> expected, bool matrix) {
    if (!ok()) return;
    std::vector<Eigen::Index> found{m.rows()};
    if (matrix) found.push_back(m.cols());
    if (found != expected) {
      problem = "wrong shape of dataset " + dataset(name) + ": expected " + shape_text(expected) +
                ", found " + shape_text(found);
    }
  }

  template <typename Derived>
  void finite(const std::string& name, const Eigen::DenseBase<Derived>& m, bool matrix) {
    if (!ok()) return;
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      for (Eigen::Index i = 0; i < m.rows(); ++i) {
        if (!std::isfinite(m(i, j))) {
          problem =
              "non-finite value in dataset " + dataset(name) + " at " + cell_text(i, j, matrix);
          return;
        }
      }
    }
  }

  // Every entry of an index array lies in [0, n): "<what> i references <target> v, but there
  // are n <targets>".
  template <typename Derived>
  void indices(const std::string& name, const Eigen::DenseBase<Derived>& m, Eigen::Index n,
               const std::string& what, const std::string& target = "vertex",
               const std::string& targets = "vertices") {
    if (!ok()) return;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
      for (Eigen::Index j = 0; j < m.cols(); ++j) {
        if (m(i, j) < 0 || m(i, j) >= n) {
          problem = "dataset " + dataset(name) + ": " + what + " " + std::to_string(i) +
                    " references " + target + " " + std::to_string(m(i, j)) + ", but there are " +
                    std::to_string(n) + " " + targets;
          return;
        }
      }
    }
  }

  // Per-tet material values satisfy `valid`.
  template <typename Predicate>
  void per_tet(const std::string& name, const Eigen::VectorXd& v, Predicate valid,
               const std::string& rule) {
    if (!ok()) return;
    for (Eigen::Index t = 0; t < v.size(); ++t) {
      if (!valid(v(t))) {
        problem = "dataset " + dataset(name) + ": tet " + std::to_string(t) + " has value " +
                  std::to_string(v(t)) + " (" + rule + ")";
        return;
      }
    }
  }

  // A rest rotation: finite, orthonormal to kRotationTolerance, determinant +1.
  void rotation(const std::string& name, const Eigen::Matrix3d& r) {
    finite(name, r, true);
    if (!ok()) return;
    const double error = (r.transpose() * r - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff();
    if (error > kRotationTolerance || r.determinant() <= 0) {
      problem = "dataset " + dataset(name) +
                ": not a rotation matrix (max |R^T R - I| = " + number_text(error) +
                ", det R = " + number_text(r.determinant()) + ")";
    }
  }

  void attribute(const std::string& name, bool valid, const std::string& message) {
    if (ok() && !valid) problem = "attribute '" + name + "' of " + group_ + ": " + message;
  }

  std::string problem;

 private:
  std::string group_;
};

// Checks the shape and finiteness of every dataset model_fields.h lists for a group (the rules
// that need no other field's meaning); the semantic rules follow by hand below.
class FieldChecker : public model_fields::InMemoryGroups {
 public:
  explicit FieldChecker(Checker& checker) : c_(checker) {}

  template <typename T>
  void attribute(const char*, const T&) {}
  void text(const char*, const std::string&) {}
  void require_nonnegative(const char*, const int&) {}
  void flag(const char*, const bool&) {}
  void lumping(const char*, const InterfaceLumping&) {}
  template <typename T>
  void column(const char*, const std::vector<DomainSettings>&, T DomainSettings::*, int) {}

  template <typename M>
  void dataset(const char* name, const M& value, model_fields::Shape expected) {
    const std::string where = path(name);
    const bool matrix = M::ColsAtCompileTime != 1;
    // An empty dataset matches an expected shape with no elements ((3, 0) for a rigid domain).
    const bool empty_match = value.size() == 0 && expected.rows >= 0 &&
                             (!matrix || expected.cols >= 0) &&
                             expected.rows * (matrix ? expected.cols : 1) == 0;
    if (!empty_match && (expected.rows >= 0 || (matrix && expected.cols >= 0))) {
      std::vector<Eigen::Index> want{expected.rows >= 0 ? expected.rows : value.rows()};
      if (matrix) want.push_back(expected.cols >= 0 ? expected.cols : value.cols());
      c_.shape(where, value, want, matrix);
    }
    if constexpr (!std::is_integral_v<typename M::Scalar>) c_.finite(where, value, matrix);
  }
  void packed_symmetric(const char* name, const Eigen::MatrixXd& value, Eigen::Index n) {
    dataset(name, value, {n, n});
  }

 private:
  Checker& c_;
};

// The attributes, then every field's shape and finiteness, then the mesh, material, basis and
// polynomial rules of one part.
std::string check_part(const ReducedModel& model, int k) {
  const ReducedPart& d = model.parts[static_cast<std::size_t>(k)];
  Checker c(part_group_path(k));
  const Eigen::Index V = d.rest_positions.rows();
  const Eigen::Index T = d.tets.rows();
  const Eigen::Index r = d.basis.cols();
  const Eigen::Index p = r * (r + 1) / 2;

  c.attribute("name", d.name.find('\0') == std::string::npos, "contains a NUL byte");
  c.attribute("r", d.polynomial.r == r,
              "the polynomial has r = " + std::to_string(d.polynomial.r) + " but the basis has " +
                  std::to_string(r) + " columns");
  c.attribute("num_rigid_modes", d.num_rigid_modes == 0 || d.num_rigid_modes == 6,
              std::to_string(d.num_rigid_modes) + " (must be 0 or 6)");
  c.attribute("mass", std::isfinite(d.mass) && d.mass > 0,
              std::to_string(d.mass) + " (must be positive and finite)");
  FieldChecker fields(c);
  if (c.ok()) model_fields::visit_part(d, static_cast<int>(model.domains.size()), fields);

  if (c.ok() && V == 0) c.problem = "dataset " + c.dataset("mesh/rest_positions") + " is empty";
  if (c.ok() && T == 0) c.problem = "dataset " + c.dataset("mesh/tets") + " is empty";
  c.indices("mesh/tets", d.tets, V, "tet");
  c.indices("mesh/surface_triangles", d.surface_triangles, V, "triangle");

  c.per_tet(
      "material/youngs_modulus", d.youngs_modulus,
      [](double e) { return std::isfinite(e) && e > 0; }, "must be positive");
  c.per_tet(
      "material/poisson_ratio", d.poisson_ratio,
      [](double nu) { return std::isfinite(nu) && nu > -1 && nu < 0.5; }, "must be in (-1, 0.5)");
  c.per_tet(
      "material/density", d.density, [](double rho) { return std::isfinite(rho) && rho > 0; },
      "must be positive");

  c.indices("fixed_vertices", d.fixed_vertices, V, "entry");
  for (Eigen::Index i = 1; c.ok() && i < d.fixed_vertices.size(); ++i) {
    if (d.fixed_vertices(i) <= d.fixed_vertices(i - 1)) {
      c.problem = "dataset " + c.dataset("fixed_vertices") + ": not strictly increasing at entry " +
                  std::to_string(i);
    }
  }
  if (c.ok() && d.num_rigid_modes != 0 && d.fixed_vertices.size() != 0) {
    c.attribute("num_rigid_modes", false, "a part with fixed vertices has no rigid modes");
  }

  // Contact samples: ascending surface-mesh vertices, non-negative areas, the basis's rows.
  const ContactSamples& samples = d.contact;
  c.indices("contact/vertices", samples.vertices, V, "entry");
  for (Eigen::Index i = 1; c.ok() && i < samples.vertices.size(); ++i)
    if (samples.vertices(i) <= samples.vertices(i - 1))
      c.problem = "dataset " + c.dataset("contact/vertices") +
                  ": not strictly increasing at entry " + std::to_string(i);
  for (Eigen::Index i = 0; c.ok() && i < samples.weights.size(); ++i)
    if (!(samples.weights(i) >= 0))
      c.problem = "dataset " + c.dataset("contact/weights") + ": entry " + std::to_string(i) +
                  " is not a non-negative area";
  for (Eigen::Index i = 0; c.ok() && i < samples.vertices.size(); ++i)
    if (samples.basis.middleRows<3>(3 * i) != d.basis.middleRows<3>(3 * samples.vertices(i)))
      c.problem = "dataset " + c.dataset("contact/basis") + ": rows " + std::to_string(3 * i) +
                  ".." + std::to_string(3 * i + 2) + " differ from the basis at vertex " +
                  std::to_string(samples.vertices(i));

  // r = 0 is a rigid part (docs/FORMAT.md): every basis-sized dataset is then empty.

  const ReducedStvkPolynomial& poly = d.polynomial;
  if (c.ok() && p > 0) {
    // The file keeps the upper triangle only: the matrix must be symmetric (to rounding).
    const double tolerance = 1e-12 * poly.quartic.cwiseAbs().maxCoeff();
    for (Eigen::Index j = 0; c.ok() && j < p; ++j) {
      for (Eigen::Index i = j + 1; i < p; ++i) {
        if (std::abs(poly.quartic(i, j) - poly.quartic(j, i)) > tolerance) {
          c.problem = "dataset " + c.dataset("polynomial/quartic") + ": not symmetric at " +
                      cell_text(i, j, true);
          break;
        }
      }
    }
  }
  return c.problem;
}

// The number of vertices of the undivided mesh, with the single-domain default resolved
// (num_global_vertices 0 with one domain: that domain's #V).
Eigen::Index undivided_vertex_count(const ReducedModel& model) {
  if (model.num_global_vertices == 0 && model.domains.size() == 1) {
    return part_of(model, 0).rest_positions.rows();
  }
  return model.num_global_vertices;
}

// Domain k's global vertex map: #V distinct entries in [0, N); empty means the identity (one
// domain only).
void check_global_vertex_map(const ReducedModel& model, int k, Checker& c) {
  const ReducedDomain& d = model.domains[static_cast<std::size_t>(k)];
  const bool single = model.domains.size() == 1;
  const Eigen::Index V = model.parts[static_cast<std::size_t>(d.part)].rest_positions.rows();
  const Eigen::Index N = undivided_vertex_count(model);
  if (c.ok() && d.global_vertices.size() == 0) {
    if (!single) {
      c.fail("dataset " + c.dataset("global_vertices") +
             " is empty: every domain of a model of several domains maps its vertices to the "
             "undivided mesh");
    } else if (N != V) {
      c.fail("dataset " + c.dataset("global_vertices") +
             " is empty (the identity), but attribute 'num_global_vertices' of /domains is " +
             std::to_string(N) + ", not the domain's " + std::to_string(V) + " vertices");
    }
  } else if (c.ok()) {
    c.indices("global_vertices", d.global_vertices, N, "entry", "global vertex",
              "vertices in the undivided mesh (attribute 'num_global_vertices' of /domains)");
    std::vector<Eigen::Index> first(static_cast<std::size_t>(c.ok() ? N : 0), -1);
    for (Eigen::Index v = 0; c.ok() && v < V; ++v) {
      Eigen::Index& seen = first[static_cast<std::size_t>(d.global_vertices(v))];
      if (seen >= 0) {
        c.fail("dataset " + c.dataset("global_vertices") + ": entries " + std::to_string(seen) +
               " and " + std::to_string(v) + " are both global vertex " +
               std::to_string(d.global_vertices(v)));
      }
      seen = v;
    }
  }
}

// Domain k's interface with its parent (only non-root domains have one): conforming or embedded,
// indices, weights, shared global vertices, and the child's rest frame as the interface's.
void check_parent_interface(const ReducedModel& model, int k, Checker& c) {
  const ReducedDomain& d = model.domains[static_cast<std::size_t>(k)];
  const Eigen::Index V = model.parts[static_cast<std::size_t>(d.part)].rest_positions.rows();
  const ParentInterface& f = d.interface;
  const std::string fg = "interface/";
  if (c.ok() && k == 0) {
    if (f.parent_vertices.size() != 0 || f.child_vertices.size() != 0 || f.weights.size() != 0 ||
        f.parent_tets.size() != 0 || f.centroid_basis.size() != 0 || f.rotation_basis.size() != 0) {
      c.fail("group " + c.dataset("interface") +
             ": the root domain has no parent, but it has interface data (" +
             std::to_string(f.child_vertices.size()) + " interface vertices)");
    }
  } else if (c.ok()) {
    const ReducedDomain& parent = model.domains[static_cast<std::size_t>(d.parent)];
    const ReducedPart& parent_part = part_of(model, d.parent);
    const std::string parent_group = domain_group_path(d.parent);
    const Eigen::Index m = f.child_vertices.size();
    const bool conforming = f.parent_vertices.size() != 0;
    const bool embedded = f.parent_tets.size() != 0;
    if (m < 3) {
      c.fail("dataset " + c.dataset(fg + "child_vertices") + ": the interface has " +
             std::to_string(m) + " vertices (at least 3 are needed)");
    } else if (conforming == embedded) {
      c.fail("group " + c.dataset("interface") +
             (conforming ? " has both parent_vertices and parent_tets"
                         : " has neither parent_vertices nor parent_tets") +
             " (exactly one: the parent's vertices, or the parent's tets holding the base)");
    }
    if (conforming)
      c.indices(fg + "parent_vertices", f.parent_vertices, parent_part.rest_positions.rows(),
                "entry", "vertex", "vertices in the parent " + parent_group);
    if (embedded) {
      c.indices(fg + "parent_tets", f.parent_tets, parent_part.tets.rows(), "entry", "tet",
                "tets in the parent " + parent_group);
      for (Eigen::Index i = 0; c.ok() && i < m; ++i) {
        const double sum = f.parent_barycentric.row(i).sum();
        if (std::abs(sum - 1) > kBarycentricTolerance)
          c.fail("dataset " + c.dataset(fg + "parent_barycentric") + ": row " + std::to_string(i) +
                 " sums to " + number_text(sum) + ", not 1");
      }
    }
    c.indices(fg + "child_vertices", f.child_vertices, V, "entry", "vertex",
              "vertices in this domain");
    for (Eigen::Index i = 0; c.ok() && i < m; ++i) {
      if (f.weights(i) < 0) {
        c.fail("dataset " + c.dataset(fg + "weights") + ": entry " + std::to_string(i) + " is " +
               number_text(f.weights(i)) + " (interface areas must not be negative)");
      }
    }
    if (c.ok() && !(f.weights.sum() > 0)) {
      c.fail("dataset " + c.dataset(fg + "weights") + ": all weights are zero");
    }
    // Both copies of a conforming interface vertex are the same vertex of the undivided mesh.
    if (c.ok() && conforming && d.global_vertices.size() != 0 &&
        parent.global_vertices.size() != 0) {
      for (Eigen::Index i = 0; c.ok() && i < m; ++i) {
        const int gp = parent.global_vertices(f.parent_vertices(i));
        const int gc = d.global_vertices(f.child_vertices(i));
        if (gp != gc) {
          c.fail("dataset " + c.dataset(fg + "child_vertices") + ": entry " + std::to_string(i) +
                 " is global vertex " + std::to_string(gc) + ", but its parent copy (vertex " +
                 std::to_string(f.parent_vertices(i)) + " of " + parent_group +
                 ") is global vertex " + std::to_string(gp));
        }
      }
    }
    c.rotation(fg + "rest_rotation", f.rest_rotation);

    // At rest the child's frame is the interface's (origin x̂_ij, axes R̂_ij) in the parent's.
    const Eigen::Matrix3d rotation = parent.frame_rotation * f.rest_rotation;
    const Eigen::Vector3d origin = parent.frame_origin + parent.frame_rotation * f.centroid;
    const double rotation_error = (d.frame_rotation - rotation).cwiseAbs().maxCoeff();
    const double scale = 1 + parent.frame_origin.norm() + f.centroid.norm();
    if (c.ok() && rotation_error > kRotationTolerance) {
      c.fail("dataset " + c.dataset("frame/rotation") + " is not the parent's frame_rotation " +
             "times interface/rest_rotation (they differ by up to " + number_text(rotation_error) +
             ")");
    }
    if (c.ok() && (d.frame_origin - origin).norm() > kFrameOriginTolerance * scale) {
      c.fail("dataset " + c.dataset("frame/origin") + " is " + vector_text(d.frame_origin) +
             ", but the rest interface centroid in the world (the parent's frame_origin + " +
             "frame_rotation interface/centroid) is " + vector_text(origin));
    }
  }
}

// Domain k's subtree: mass at least the domain's own; 0 (not computed) only in a single-domain
// model.
void check_subtree(const ReducedModel& model, int k, Checker& c) {
  const ReducedDomain& d = model.domains[static_cast<std::size_t>(k)];
  const bool single = model.domains.size() == 1;
  const ReducedPart& part = model.parts[static_cast<std::size_t>(d.part)];
  if (c.ok() && !(single && d.subtree_mass == 0)) {
    const std::string where = "attribute 'mass' of " + c.dataset("subtree") + ": ";
    if (!std::isfinite(d.subtree_mass) || d.subtree_mass <= 0) {
      c.fail(where + number_text(d.subtree_mass) + " (must be positive and finite)");
    } else if (const double own = part.mass * d.scale * d.scale * d.scale;
               d.subtree_mass < own * (1 - kSubtreeMassTolerance)) {
      c.fail(where + number_text(d.subtree_mass) + " is less than the domain's own mass " +
             number_text(own));
    }
  }
}

// Domain k's part and scale, place in the tree, frame, global vertex map, interface and subtree
// data; the parts and the domains before k are known to be consistent.
std::string check_domain(const ReducedModel& model, int k) {
  const ReducedDomain& d = model.domains[static_cast<std::size_t>(k)];
  Checker c(domain_group_path(k));
  c.attribute("name", d.name.find('\0') == std::string::npos, "contains a NUL byte");
  c.attribute(
      "part", d.part >= 0 && d.part < static_cast<int>(model.parts.size()),
      std::to_string(d.part) + " (there are " + std::to_string(model.parts.size()) + " parts)");
  c.attribute("scale",
              std::isfinite(d.scale) && d.scale >= kMinPartScale && d.scale <= kMaxPartScale,
              number_text(d.scale) + " (must be in [" + number_text(kMinPartScale) + ", " +
                  number_text(kMaxPartScale) + "])");
  if (!c.ok()) return c.problem;
  {
    FieldChecker fields(c);
    const auto part_vertices = [&](int p) -> Eigen::Index {
      return model.parts[static_cast<std::size_t>(p)].rest_positions.rows();
    };
    const auto domain_r = [&](int i) -> Eigen::Index { return part_of(model, i).basis.cols(); };
    model_fields::visit_domain(d, k, part_vertices, domain_r, fields);
  }

  if (k == 0) {
    c.attribute(
        "parent", d.parent == -1,
        std::to_string(d.parent) + " (domain 0 is the root of the tree: its parent must be -1)");
  } else {
    c.attribute("parent", d.parent >= 0 && d.parent < k,
                std::to_string(d.parent) + " (the parent of domain " + std::to_string(k) +
                    " must be an earlier domain, 0 <= parent < " + std::to_string(k) + ")");
  }

  c.rotation("frame/rotation", d.frame_rotation);

  if (c.ok()) check_global_vertex_map(model, k, c);
  if (c.ok()) check_parent_interface(model, k, c);
  // System-force integrals: their shapes (for r, or all empty when not computed for a rigid
  // domain or the domain of a single-domain model) are model_fields.h's.
  if (c.ok()) check_subtree(model, k, c);
  return c.problem;
}

// The whole-model data: the undivided mesh's surface and the embedded render surface.
std::string check_global(const ReducedModel& model) {
  Checker c("");
  if (model.num_global_vertices < 0 ||
      (model.num_global_vertices == 0 && model.domains.size() > 1)) {
    return "attribute 'num_global_vertices' of /domains: " +
           std::to_string(model.num_global_vertices) +
           (model.num_global_vertices < 0
                ? " (must not be negative)"
                : " (a model of several domains needs the size of its undivided mesh)");
  }
  c.indices("global_surface_triangles", model.global_surface_triangles,
            undivided_vertex_count(model), "triangle", "vertex",
            "vertices in the undivided mesh (attribute 'num_global_vertices' of /domains)");

  if (model.accuracy.measured) {
    FieldChecker fields(c);
    fields.group("accuracy", {false, true},
                 [&] { model_fields::visit_accuracy(model.accuracy, fields); });
    if (!c.ok()) return c.problem;
  }
  const EmbeddedSurface& s = model.embedded_surface;
  const Eigen::Index S = s.rest_positions.rows();
  const std::string eg = "embedded_surface/";
  if (S > 0) {
    FieldChecker fields(c);
    fields.group("embedded_surface", {false, true},
                 [&] { model_fields::visit_embedded_surface(s, fields); });
  }
  if (c.ok() && S == 0) {
    if (s.triangles.rows() != 0 || s.domain.size() != 0 || s.tet.size() != 0 ||
        s.barycentric.rows() != 0) {
      c.fail("dataset " + c.dataset(eg + "rest_positions") +
             ": the embedded surface has no vertices but " + std::to_string(s.triangles.rows()) +
             " triangles and " + std::to_string(s.domain.size()) + " embedded vertices");
    }
    return c.problem;
  }
  c.indices(eg + "triangles", s.triangles, S, "triangle");
  c.indices(eg + "domain", s.domain, static_cast<Eigen::Index>(model.domains.size()), "entry",
            "domain", "domains");
  for (Eigen::Index i = 0; c.ok() && i < S; ++i) {
    const int k = s.domain(i);
    const Eigen::Index T = part_of(model, k).tets.rows();
    if (s.tet(i) < 0 || s.tet(i) >= T) {
      c.fail("dataset " + c.dataset(eg + "tet") + ": entry " + std::to_string(i) +
             " references tet " + std::to_string(s.tet(i)) + ", but " + domain_group_path(k) +
             " has " + std::to_string(T) + " tets");
    }
  }
  for (Eigen::Index i = 0; c.ok() && i < S; ++i) {
    const double sum = s.barycentric.row(i).sum();
    if (std::abs(sum - 1) > kBarycentricTolerance) {
      c.fail("dataset " + c.dataset(eg + "barycentric") + ": row " + std::to_string(i) +
             " sums to " + number_text(sum) + ", not 1");
    }
  }
  return c.problem;
}

}  // namespace

std::string domain_group_path(int k) {
  return "/domains/domain_" + std::to_string(k);
}

std::string part_group_path(int k) {
  return "/parts/part_" + std::to_string(k);
}

std::string find_model_inconsistency(const ReducedModel& model) {
  if (model.domains.empty()) return "attribute 'num_domains' of /domains: the model has no domain";
  const ModelProvenance& p = model.provenance;
  for (const std::string* text : {&p.tool_version, &p.created_utc, &p.spec_path, &p.spec_json,
                                  &p.mesh_path, &p.options_json}) {
    if (text->find('\0') != std::string::npos) {
      return "an attribute of /provenance contains a NUL byte";
    }
  }
  if (model.num_global_vertices < 0 ||
      (model.num_global_vertices == 0 && model.domains.size() > 1)) {
    return check_global(model);  // names num_global_vertices before any domain refers to it
  }
  // Every vertex of the undivided mesh is some domain's: a larger count is corrupt, and is
  // refused before anything is allocated for it (2^31 meant 16 GiB).
  if (model.parts.empty() || model.parts.size() > model.domains.size())
    return "attribute 'num_parts' of /parts: " + std::to_string(model.parts.size()) +
           " (must be in [1, num_domains = " + std::to_string(model.domains.size()) + "])";
  for (std::size_t k = 0; k < model.parts.size(); ++k)
    if (std::string problem = check_part(model, static_cast<int>(k)); !problem.empty())
      return problem;
    else if (problem = part_render_surface_problem(model.parts[k], static_cast<int>(k));
             !problem.empty())
      return problem;
  long long domain_vertices = 0;
  for (const ReducedDomain& d : model.domains)
    if (d.part >= 0 && d.part < static_cast<int>(model.parts.size()))
      domain_vertices += model.parts[static_cast<std::size_t>(d.part)].rest_positions.rows();
  const bool identity = model.domains.size() == 1 && model.domains[0].global_vertices.size() == 0;
  if (model.num_global_vertices > domain_vertices && !identity)  // (identity: named below)
    return "attribute 'num_global_vertices' of /domains: " +
           std::to_string(model.num_global_vertices) + " exceeds the " +
           std::to_string(domain_vertices) + " vertices of all domains together";
  for (std::size_t k = 0; k < model.domains.size(); ++k)
    if (std::string problem = check_domain(model, static_cast<int>(k)); !problem.empty())
      return problem;
  // Every part is placed (an unplaced one is dead weight the runtime would still compile).
  std::vector<bool> placed(model.parts.size(), false);
  for (const ReducedDomain& d : model.domains) placed[static_cast<std::size_t>(d.part)] = true;
  for (std::size_t k = 0; k < placed.size(); ++k)
    if (!placed[k])
      return "group " + part_group_path(static_cast<int>(k)) + " is placed by no domain";
  if (std::string problem = check_global(model); !problem.empty()) return problem;
  // Stored quantities against the model's own scale (a well-sealed lie).
  if (std::string problem = find_scale_problem(model); !problem.empty()) return problem;
  // Runtime settings: none given (domains empty) means the defaults for every domain.
  RuntimeSettings settings = model.settings;
  if (settings.domains.empty()) settings.domains.resize(model.domains.size());
  if (std::string problem = find_settings_problem(settings, static_cast<int>(model.domains.size()));
      !problem.empty())
    return "group /runtime: " + problem;
  // The run's scenario: its forces at vertices of the whole model (a one-domain model without
  // a global map numbers them as its part does).
  const int vertices =
      identity ? static_cast<int>(model.parts[0].rest_positions.rows()) : model.num_global_vertices;
  if (std::string problem = find_scenario_problem(model.scenario, vertices); !problem.empty())
    return "group /runtime/scenario: " + problem;
  return "";
}

}  // namespace ramus
