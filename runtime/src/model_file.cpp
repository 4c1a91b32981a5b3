#include "ramus/runtime/model_file.h"

#include <cmath>
#include <utility>
#include <vector>

#include "ramus/error.h"
#include "ramus/runtime/hdf5_file.h"

namespace ramus {

namespace {

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

// Collects the first problem found; every check is a no-op once one is recorded.
class Checker {
 public:
  explicit Checker(std::string group) : group_(std::move(group)) {}
  bool ok() const { return problem.empty(); }
  std::string dataset(const std::string& name) const { return group_ + "/" + name; }

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

  // Every entry of an index array lies in [0, n).
  template <typename Derived>
  void indices(const std::string& name, const Eigen::DenseBase<Derived>& m, Eigen::Index n,
               const std::string& what) {
    if (!ok()) return;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
      for (Eigen::Index j = 0; j < m.cols(); ++j) {
        if (m(i, j) < 0 || m(i, j) >= n) {
          problem = "dataset " + dataset(name) + ": " + what + " " + std::to_string(i) +
                    " references vertex " + std::to_string(m(i, j)) + ", but there are " +
                    std::to_string(n) + " vertices";
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

  void attribute(const std::string& name, bool valid, const std::string& message) {
    if (ok() && !valid) problem = "attribute '" + name + "' of " + group_ + ": " + message;
  }

  std::string problem;

 private:
  std::string group_;
};

std::string check_domain(const ReducedDomain& d, int k) {
  Checker c(domain_group_path(k));
  const Eigen::Index V = d.rest_positions.rows();
  const Eigen::Index T = d.tets.rows();
  const Eigen::Index r = d.basis.cols();
  const Eigen::Index p = r * (r + 1) / 2;

  c.attribute("name", d.name.find('\0') == std::string::npos, "contains a NUL byte");
  c.attribute("r", r >= 1, "the basis has no columns (r must be at least 1)");
  c.attribute("r", d.polynomial.r == r,
              "the polynomial has r = " + std::to_string(d.polynomial.r) + " but the basis has " +
                  std::to_string(r) + " columns");
  c.attribute("num_rigid_modes", d.num_rigid_modes == 0 || d.num_rigid_modes == 6,
              std::to_string(d.num_rigid_modes) + " (must be 0 or 6)");
  c.attribute("mass", std::isfinite(d.mass) && d.mass > 0,
              std::to_string(d.mass) + " (must be positive and finite)");

  c.shape("mesh/rest_positions", d.rest_positions, {V, 3}, true);
  if (c.ok() && V == 0) c.problem = "dataset " + c.dataset("mesh/rest_positions") + " is empty";
  c.finite("mesh/rest_positions", d.rest_positions, true);
  if (c.ok() && T == 0) c.problem = "dataset " + c.dataset("mesh/tets") + " is empty";
  c.indices("mesh/tets", d.tets, V, "tet");
  c.indices("mesh/surface_triangles", d.surface_triangles, V, "triangle");
  if (d.labels.size() != 0) c.shape("mesh/labels", d.labels, {T}, false);

  c.shape("material/youngs_modulus", d.youngs_modulus, {T}, false);
  c.shape("material/poisson_ratio", d.poisson_ratio, {T}, false);
  c.shape("material/density", d.density, {T}, false);
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
    c.attribute("num_rigid_modes", false, "a domain with fixed vertices has no rigid modes");
  }

  c.shape("basis", d.basis, {3 * V, r}, true);
  c.finite("basis", d.basis, true);
  c.shape("basis_eigenvalues", d.basis_eigenvalues, {r}, false);
  c.finite("basis_eigenvalues", d.basis_eigenvalues, false);
  c.finite("linear_mode_eigenvalues", d.linear_mode_eigenvalues, false);
  c.shape("gravity_basis", d.gravity_basis, {r, 3}, true);
  c.finite("gravity_basis", d.gravity_basis, true);

  const ReducedStvkPolynomial& poly = d.polynomial;
  c.shape("polynomial/quadratic", poly.quadratic, {p}, false);
  c.finite("polynomial/quadratic", poly.quadratic, false);
  c.shape("polynomial/cubic", poly.cubic, {p, r}, true);
  c.finite("polynomial/cubic", poly.cubic, true);
  c.shape("polynomial/quartic", poly.quartic, {p, p}, true);
  c.finite("polynomial/quartic", poly.quartic, true);
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

[[noreturn]] void unsupported_version(const std::string& path, int version,
                                      const hdf5::Group& root) {
  std::string message = "schema version " + std::to_string(version) +
                        " is not supported by this Ramus (expects " +
                        std::to_string(kModelFormatVersion) + ")";
  if (version > kModelFormatVersion) {
    std::string writer = "a newer Ramus";
    if (root.has_attribute("ramus_version")) {
      writer = "Ramus " + root.read_string_attribute("ramus_version");
    }
    message += "; it was written by " + writer + ": upgrade, or re-run ramus precompute";
  } else {
    message += "; re-run ramus precompute";
  }
  throw InputError(path, 0, message);
}

ReducedDomain read_domain(const hdf5::Group& g) {
  ReducedDomain d;
  d.name = g.read_string_attribute("name");
  d.num_rigid_modes = g.read_int_attribute("num_rigid_modes");
  d.mass = g.read_double_attribute("mass");
  const int r = g.read_int_attribute("r");
  if (r < 1) throw InputError(g.file(), 0, "attribute 'r' of " + g.path() + " must be >= 1");

  d.rest_positions = g.read_matrix_double("mesh/rest_positions", -1, 3);
  const Eigen::Index V = d.rest_positions.rows();
  d.tets = g.read_matrix_int("mesh/tets", -1, 4);
  const Eigen::Index T = d.tets.rows();
  d.surface_triangles = g.read_matrix_int("mesh/surface_triangles", -1, 3);
  if (g.has("mesh/labels")) d.labels = g.read_vector_int("mesh/labels", T);
  d.youngs_modulus = g.read_vector_double("material/youngs_modulus", T);
  d.poisson_ratio = g.read_vector_double("material/poisson_ratio", T);
  d.density = g.read_vector_double("material/density", T);
  d.fixed_vertices = g.read_vector_int("fixed_vertices");

  d.basis = g.read_matrix_double("basis", 3 * V, r);
  d.basis_eigenvalues = g.read_vector_double("basis_eigenvalues", r);
  d.linear_mode_eigenvalues = g.read_vector_double("linear_mode_eigenvalues");
  d.gravity_basis = g.read_matrix_double("gravity_basis", r, 3);

  // Sizes from the (now known to be small enough) basis: p <= 46341^2 / 2, no overflow below.
  const Eigen::Index p = num_pairs(r);
  d.polynomial.r = r;
  d.polynomial.quadratic = g.read_vector_double("polynomial/quadratic", p);
  d.polynomial.cubic = g.read_matrix_double("polynomial/cubic", p, r);
  d.polynomial.quartic =
      unpack_upper_triangle(g.read_vector_double("polynomial/quartic", p * (p + 1) / 2), p);
  return d;
}

}  // namespace

std::string domain_group_path(int k) {
  return "/domains/domain_" + std::to_string(k);
}

Eigen::VectorXd pack_upper_triangle(const Eigen::MatrixXd& symmetric) {
  const Eigen::Index n = symmetric.rows();
  Eigen::VectorXd packed(n * (n + 1) / 2);
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = i; j < n; ++j) packed(k++) = symmetric(i, j);
  }
  return packed;
}

Eigen::MatrixXd unpack_upper_triangle(const Eigen::VectorXd& packed, Eigen::Index n) {
  Eigen::MatrixXd full(n, n);
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = i; j < n; ++j) full(i, j) = full(j, i) = packed(k++);
  }
  return full;
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
  for (std::size_t k = 0; k < model.domains.size(); ++k) {
    std::string problem = check_domain(model.domains[k], static_cast<int>(k));
    if (!problem.empty()) return problem;
  }
  return "";
}

ReducedModel read_model_file(const std::string& path) {
  const hdf5::File file = hdf5::File::open(path);
  const hdf5::Group root = file.root();
  if (!root.has_attribute("format")) {
    throw InputError(path, 0, "not a Ramus model file (no attribute 'format' on /)");
  }
  if (const std::string format = root.read_string_attribute("format"); format != kModelFormatName) {
    throw InputError(path, 0,
                     "not a Ramus model file (attribute 'format' of / is '" + format +
                         "', expected '" + kModelFormatName + "')");
  }
  ReducedModel model;
  model.format_version = root.read_int_attribute("format_version");
  if (model.format_version != kModelFormatVersion) {
    unsupported_version(path, model.format_version, root);
  }

  const hdf5::Group provenance = root.group("provenance");
  ModelProvenance& p = model.provenance;
  p.tool_version = provenance.read_string_attribute("tool_version");
  p.created_utc = provenance.read_string_attribute("created_utc");
  p.spec_path = provenance.read_string_attribute("spec_path");
  p.spec_json = provenance.read_string_attribute("spec_json");
  p.mesh_path = provenance.read_string_attribute("mesh_path");
  p.input_hash = provenance.read_uint64_attribute("input_hash");
  p.options_json = provenance.read_string_attribute("options_json");

  const hdf5::Group domains = root.group("domains");
  const int num_domains = domains.read_int_attribute("num_domains");
  if (num_domains < 1) {
    throw InputError(path, 0,
                     "attribute 'num_domains' of /domains is " + std::to_string(num_domains) +
                         " (must be at least 1)");
  }
  for (int k = 0; k < num_domains; ++k) {
    model.domains.push_back(read_domain(domains.group("domain_" + std::to_string(k))));
  }
  if (std::string problem = find_model_inconsistency(model); !problem.empty()) {
    throw InputError(path, 0, problem);
  }
  return model;
}

}  // namespace ramus
