// Compiling a model file's contents into the immutable Model the runtime steps.
#include "ramus/runtime/model/model.h"

#include "ramus/runtime/contact/contact_samples.h"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <string>

#include "../data/heap_bytes.h"
#include "compile_render_mesh.h"
#include "ramus/error.h"
#include "ramus/runtime/model/model_geometry.h"

namespace ramus {

namespace {

bool has_shape(const Eigen::MatrixXd& m, Eigen::Index rows, Eigen::Index cols) {
  return m.rows() == rows && m.cols() == cols;
}

std::string domain_label(const ReducedModel& data, int d) {
  return "domain " + std::to_string(d) + " ('" + data.domains[static_cast<std::size_t>(d)].name +
         "')";
}

std::string part_label(const ReducedModel& data, int p) {
  return "part " + std::to_string(p) + " ('" + data.parts[static_cast<std::size_t>(p)].name + "')";
}

// ∫ρ X dV over a tet mesh: a linear function integrates to its centroid value times the volume.
Eigen::Vector3d mesh_first_moment(const ReducedPart& d) {
  Eigen::Vector3d moment = Eigen::Vector3d::Zero();
  for (Eigen::Index t = 0; t < d.tets.rows(); ++t) {
    const Eigen::Vector3d a = d.rest_positions.row(d.tets(t, 0)).transpose();
    const Eigen::Vector3d b = d.rest_positions.row(d.tets(t, 1)).transpose();
    const Eigen::Vector3d c = d.rest_positions.row(d.tets(t, 2)).transpose();
    const Eigen::Vector3d e = d.rest_positions.row(d.tets(t, 3)).transpose();
    const double volume = std::abs((b - a).cross(c - a).dot(e - a)) / 6.0;
    moment += d.density(t) * volume * 0.25 * (a + b + c + e);
  }
  return moment;
}

// ∫ρ X Xᵀ dV over a tet mesh: on a tet with corners x_k, ∫ x xᵀ = V/20 (Σ x_k x_kᵀ + s sᵀ),
// s = Σ x_k (exact for the linear position field).
Eigen::Matrix3d mesh_second_moment(const ReducedPart& d) {
  Eigen::Matrix3d moment = Eigen::Matrix3d::Zero();
  for (Eigen::Index t = 0; t < d.tets.rows(); ++t) {
    Eigen::Matrix<double, 3, 4> x;
    for (int k = 0; k < 4; ++k) x.col(k) = d.rest_positions.row(d.tets(t, k)).transpose();
    const double volume =
        std::abs((x.col(1) - x.col(0)).cross(x.col(2) - x.col(0)).dot(x.col(3) - x.col(0))) / 6.0;
    const Eigen::Vector3d sum = x.rowwise().sum();
    moment += d.density(t) * volume / 20.0 * (x * x.transpose() + sum * sum.transpose());
  }
  return moment;
}

// Per-part data the runtime needs, checked as it is compiled (a model from a file has passed
// find_model_inconsistency already; one built in code may not have).
void check_part(const ReducedModel& data, int p, bool anchored_root_only) {
  const ReducedPart& part = data.parts[static_cast<std::size_t>(p)];
  const std::string who = part_label(data, p);
  const int r = part.polynomial.r;
  if (part.basis.cols() != r || part.basis.rows() != 3 * part.rest_positions.rows() ||
      part.gravity_basis.rows() != r || part.gravity_basis.cols() != 3)
    throw OptionError(who + ": basis or gravity basis does not have r = " + std::to_string(r) +
                      " columns");
  if (r > 0 && !has_system_force(part) && !anchored_root_only)
    throw OptionError(who +
                      ": the model lacks the system-force integrals W1..W7 of this part "
                      "(re-run `ramus precompute`)");
}

// Per-domain data the runtime needs (its part checked already).
void check_domain(const ReducedModel& data, int d) {
  const ReducedDomain& domain = data.domains[static_cast<std::size_t>(d)];
  const std::string who = domain_label(data, d);
  if (domain.part < 0 || domain.part >= static_cast<int>(data.parts.size()))
    throw OptionError(who + ": part " + std::to_string(domain.part) + " does not exist");
  if (!(domain.scale >= kMinPartScale && domain.scale <= kMaxPartScale))
    throw OptionError(who + ": scale " + std::to_string(domain.scale) + " is not in [1e-3, 1e3]");
  if (d == 0 && domain.parent != -1) throw OptionError(who + ": the root must have no parent");
  if (d > 0 && (domain.parent < 0 || domain.parent >= d))
    throw OptionError(who + ": parent " + std::to_string(domain.parent) +
                      " is not an earlier domain");
  if (d > 0) {
    const ParentInterface& itf = domain.interface;
    const int rp = part_of(data, domain.parent).polynomial.r;
    if (!has_shape(itf.centroid_basis, 3, rp) || !has_shape(itf.rotation_basis, 3, 3 * rp))
      throw OptionError(who +
                        ": interface data do not match the parent's r = " + std::to_string(rp));
    if (!(domain.subtree_mass > 0)) throw OptionError(who + ": subtree mass must be positive");
  }
  if (domain.global_vertices.size() != 0 &&
      domain.global_vertices.size() != part_of(data, d).rest_positions.rows())
    throw OptionError(who + ": the global vertex map does not have one entry per vertex");
}

}  // namespace

std::string domain_label(const Model& model, int domain) {
  return "domain " + std::to_string(domain) + " ('" +
         model.domains[static_cast<std::size_t>(domain)].name + "')";
}

std::size_t domain_model_bytes(const Model& model, int i) {
  const Domain& domain = model.domains[static_cast<std::size_t>(i)];
  // (A name longer than the string's own buffer lives on the heap, with its terminator.)
  const std::size_t name =
      domain.name.capacity() > std::string().capacity() ? domain.name.capacity() + 1 : 0;
  // Its entries in children (or step_levels for the root), step_levels or childless_domains and
  // its part's instance list and, for a domain with children, parent_domains and
  // parent_lane_domains (counted whether or not it has a lane group).
  const std::size_t lists = (domain.num_children > 0 ? 5 : 3) * sizeof(int);
  // Its render pieces: one it alone draws whole, an index in a shared one.
  std::size_t surface_bytes = 0;
  for (const RenderPiece& piece : model.render.pieces)
    for (const int d : piece.domains)
      if (d == i)
        surface_bytes += piece.domains.size() > 1 ? sizeof(int) : render_piece_bytes(piece);
  // Its global vertices' copy counts (a vertex shared by an interface counts for the first
  // domain holding it).
  std::size_t global_bytes = 0;
  if (model.num_global_vertices > 0 && domain.global_vertices.size() > 0) {
    std::vector<char> first_held_here(static_cast<std::size_t>(model.num_global_vertices), 0);
    for (const int g : domain.global_vertices) first_held_here[static_cast<std::size_t>(g)] = 1;
    for (int j = 0; j < i; ++j)
      for (const int g : model.domains[static_cast<std::size_t>(j)].global_vertices)
        first_held_here[static_cast<std::size_t>(g)] = 0;
    for (const char held : first_held_here) global_bytes += held ? sizeof(std::uint16_t) : 0;
  }
  return sizeof(Domain) + domain.interface.bytes() - sizeof(DomainInterface) + name + global_bytes +
         eigen_heap_bytes(domain.global_vertices) + eigen_heap_bytes(domain.interface_lumped_mass) +
         sizeof(DomainSettings) + lists + surface_bytes;
}

namespace {

// Numbers rounded to 16-bit integers times one scale (their largest magnitude / 32,767): the
// scale returned, the integers at `out`.
template <int N>
float quantize(const Eigen::Matrix<double, N, 1>& values, std::int16_t* out) {
  const double largest = values.cwiseAbs().maxCoeff();
  const float scale = static_cast<float>(largest / 32767.0);
  for (int k = 0; k < N; ++k) {
    const double steps = scale > 0 ? std::nearbyint(values(k) / double(scale)) : 0.0;
    out[k] = static_cast<std::int16_t>(std::clamp(steps, -32767.0, 32767.0));
  }
  return scale;
}

}  // namespace

DomainInterface compact_interface(const ParentInterface& interface, Eigen::Index offset,
                                  InterfaceColumn* columns) {
  DomainInterface out;
  out.centroid = interface.centroid;
  out.rest_rotation = interface.rest_rotation;
  const Eigen::Index r = interface.centroid_basis.cols();
  out.bases_offset = offset;
  out.bases_cols = static_cast<int>(r);
  for (Eigen::Index l = 0; l < r; ++l) {
    InterfaceColumn& column = columns[l];
    column.centroid_scale =
        quantize<3>(Eigen::Vector3d(interface.centroid_basis.col(l)), column.values);
    column.rotation_scale = quantize<9>(
        Eigen::Map<const Eigen::Matrix<double, 9, 1>>(interface.rotation_basis.data() + 9 * l),
        column.values + 3);
  }
  return out;
}

namespace {

// The domains and parts are fit to compile (each part placed, W1..W7 where needed).
void check_model_data(const ReducedModel& data, bool free_root) {
  const int num = static_cast<int>(data.domains.size());
  const int num_parts = static_cast<int>(data.parts.size());
  for (int d = 0; d < num; ++d) check_domain(data, d);
  free_root = part_of(data, 0).fixed_vertices.size() == 0;
  // W1..W7 may be missing only for a part that is nothing but an anchored root.
  std::vector<int> placements(static_cast<std::size_t>(num_parts), 0);
  for (const ReducedDomain& domain : data.domains)
    ++placements[static_cast<std::size_t>(domain.part)];
  for (int p = 0; p < num_parts; ++p) {
    if (placements[static_cast<std::size_t>(p)] == 0)
      throw OptionError(part_label(data, p) + " is placed by no domain");
    check_part(
        data, p,
        !free_root && p == data.domains[0].part && placements[static_cast<std::size_t>(p)] == 1);
  }
}

// The wind's drag integrals over a part's surface (a third of each triangle's n nᵀ A per
// corner): its area tensor, its moment about the part origin and its reduced basis (r by 3).
void wind_integrals(const ReducedPart& part, Part& proto) {
  proto.wind_basis = Eigen::MatrixXd::Zero(proto.r, 3);
  for (Eigen::Index f = 0; f < part.surface_triangles.rows(); ++f) {
    const Eigen::Vector3d a = part.rest_positions.row(part.surface_triangles(f, 0)).transpose();
    const Eigen::Vector3d b = part.rest_positions.row(part.surface_triangles(f, 1)).transpose();
    const Eigen::Vector3d c = part.rest_positions.row(part.surface_triangles(f, 2)).transpose();
    const Eigen::Vector3d area_normal = 0.5 * (b - a).cross(c - a);
    const double area = area_normal.norm();
    if (!(area > 0)) continue;
    const Eigen::Matrix3d share = area_normal * area_normal.transpose() / (3 * area);
    for (int corner = 0; corner < 3; ++corner) {
      const int v = part.surface_triangles(f, corner);
      proto.wind_area += share;
      const Eigen::Vector3d x = part.rest_positions.row(v).transpose();
      Eigen::Matrix3d cross;
      cross << 0, -x.z(), x.y(), x.z(), 0, -x.x(), -x.y(), x.x(), 0;
      proto.wind_moment += cross * share;
      if (proto.r > 0)
        proto.wind_basis.noalias() += part.basis.middleRows(3 * v, 3).transpose() * share;
    }
  }
}

// The compiled domains from the file's: tree links, interface (bases in one block, domain order),
// rest frame, subtree inertia, global vertex map; each part's list of its domains.
void compile_domains(ReducedModel& data, Model& m) {
  const int num = static_cast<int>(data.domains.size());
  const int num_parts = static_cast<int>(data.parts.size());
  std::vector<std::vector<int>> children(static_cast<std::size_t>(num));
  for (int d = 1; d < num; ++d)
    children[static_cast<std::size_t>(data.domains[static_cast<std::size_t>(d)].parent)].push_back(
        d);
  m.domains.resize(static_cast<std::size_t>(num));
  m.parts.resize(static_cast<std::size_t>(num_parts));
  // The interface bases of all domains in one block, in domain order.
  Eigen::Index bases_size = 0;
  for (const ReducedDomain& domain : data.domains)
    bases_size += domain.interface.centroid_basis.cols();
  m.interface_bases.resize(static_cast<std::size_t>(bases_size));
  Eigen::Index bases_offset = 0;
  for (int d = 0; d < num; ++d) {
    ReducedDomain& stored = data.domains[static_cast<std::size_t>(d)];
    Domain& domain = m.domains[static_cast<std::size_t>(d)];
    domain.name = stored.name;
    domain.part = stored.part;
    domain.scale = UniformScale(stored.scale);
    domain.r = part_of(data, d).polynomial.r;
    domain.parent = stored.parent;
    domain.first_child = static_cast<int>(m.children.size());
    domain.num_children = static_cast<int>(children[static_cast<std::size_t>(d)].size());
    m.children.insert(m.children.end(), children[static_cast<std::size_t>(d)].begin(),
                      children[static_cast<std::size_t>(d)].end());
    domain.interface =
        compact_interface(stored.interface, bases_offset, m.interface_bases.data() + bases_offset);
    bases_offset += domain.interface.bases_cols;
    domain.rest_origin = stored.frame_origin;
    domain.rest_rotation = stored.frame_rotation;
    domain.subtree_mass = stored.subtree_mass;
    domain.subtree_center_of_mass = stored.subtree_center_of_mass;
    domain.subtree_inertia = stored.subtree_inertia;
    const Eigen::Index V = part_of(data, d).rest_positions.rows();
    domain.global_vertices = stored.global_vertices.size() == V
                                 ? std::move(stored.global_vertices)
                                 : Eigen::VectorXi::LinSpaced(V, 0, static_cast<int>(V) - 1);
    std::vector<int>& instances = m.parts[static_cast<std::size_t>(domain.part)].domains;
    domain.instance = static_cast<int>(instances.size());
    instances.push_back(d);
  }
}

// A part's contact samples for the step (chosen here when the model has none: one built in
// memory), with their bounding sphere and the basis bound.
void compile_contact_samples(ReducedPart& part, PartContact& contact) {
  if (part.contact.vertices.size() == 0) attach_contact_samples(part, kDefaultContactSamples);
  const ContactSamples& samples = part.contact;
  const int S = samples.size();
  contact.vertices = samples.vertices;
  contact.weights = samples.weights;
  contact.basis = samples.basis;
  contact.rest.resize(3, S);
  for (int k = 0; k < S; ++k) contact.rest.col(k) = part.rest_positions.row(samples.vertices(k));
  if (S > 0) {
    const Eigen::Vector3d lo = contact.rest.rowwise().minCoeff(),
                          hi = contact.rest.rowwise().maxCoeff();
    contact.center = 0.5 * (lo + hi);
    contact.radius = (contact.rest.colwise() - contact.center).colwise().norm().maxCoeff();
  }
  contact.basis_norm = 0;
  for (int k = 0; k < S; ++k)
    contact.basis_norm = std::max(contact.basis_norm, samples.basis.middleRows<3>(3 * k).norm());
}

// The compiled parts from the file's parts: packed polynomial, system-force matrix, moments,
// divergence bound, wind integrals, then the part's arrays moved in.
void compile_parts(ReducedModel& data, Model& m) {
  const int num_parts = static_cast<int>(data.parts.size());
  for (int p = 0; p < num_parts; ++p) {
    ReducedPart& part = data.parts[static_cast<std::size_t>(p)];
    Part& proto = m.parts[static_cast<std::size_t>(p)];
    // (before the basis moves: has_system_force compares W's sizes with the basis's r)
    if (has_system_force(part)) proto.system_force_matrix = SystemForceMatrix(part.system_force);
    proto.name = part.name;
    proto.r = part.polynomial.r;
    proto.mass = part.mass;
    proto.first_moment = mesh_first_moment(part);
    proto.second_moment = mesh_second_moment(part);
    proto.batched = proto.r > 0 && static_cast<int>(proto.domains.size()) >= kMinBatchedInstances;
    proto.forces = ReducedStvkForces(part.polynomial, proto.batched);
    // |q|_2 = (∫ρ |u|² dV)^½ for a mass-orthonormal basis: the mass-weighted RMS displacement
    // times √m; kDivergenceDiameters rest diameters of it is no motion an elastic part makes.
    const double diameter =
        part.rest_positions.rows() == 0
            ? 0.0
            : (part.rest_positions.colwise().maxCoeff() - part.rest_positions.colwise().minCoeff())
                  .norm();
    proto.divergence_norm = diameter > 0 && part.mass > 0
                                ? kDivergenceDiameters * diameter * std::sqrt(part.mass)
                                : std::numeric_limits<double>::infinity();  // (size unknown)
    wind_integrals(part, proto);
    compile_contact_samples(part, proto.contact);
    proto.rest_positions = std::move(part.rest_positions);
    proto.tets = std::move(part.tets);
    proto.surface_triangles = std::move(part.surface_triangles);
    proto.basis = std::move(part.basis);
    proto.gravity_basis = std::move(part.gravity_basis);
    proto.system_force = std::move(part.system_force);
  }
}

// The step's lists: the levels of domains with children (root first), the childless domains, both
// by part; the childless in lane groups, the parents of batched parts in lane groups.
void compile_step_lists(Model& m) {
  const int num = m.num_domains();
  std::vector<int> depth(static_cast<std::size_t>(num), 0);
  for (int i = 0; i < num; ++i) {
    const Domain& domain = m.domains[static_cast<std::size_t>(i)];
    if (i > 0)
      depth[static_cast<std::size_t>(i)] = depth[static_cast<std::size_t>(domain.parent)] + 1;
    if (i == 0 || domain.num_children > 0) {
      const std::size_t d = static_cast<std::size_t>(depth[static_cast<std::size_t>(i)]);
      if (m.step_levels.size() <= d) m.step_levels.resize(d + 1);
      m.step_levels[d].push_back(i);
    }
    if (m.domains[static_cast<std::size_t>(i)].num_children > 0) m.parent_domains.push_back(i);
    if (i > 0 && m.domains[static_cast<std::size_t>(i)].num_children == 0)
      m.childless_domains.push_back(i);
  }
  // Every level and the childless domains by part (consecutive domains then read the same
  // coefficients, still in cache), the childless in lane groups of up to kLaneGroupSize.
  const auto by_part = [&m](int a, int b) {
    return m.domains[static_cast<std::size_t>(a)].part <
           m.domains[static_cast<std::size_t>(b)].part;
  };
  for (std::vector<int>& level : m.step_levels)
    std::stable_sort(level.begin(), level.end(), by_part);
  std::stable_sort(m.childless_domains.begin(), m.childless_domains.end(), by_part);
  for (std::size_t k = 0; k < m.childless_domains.size();) {
    m.childless_groups.push_back(static_cast<int>(k));
    const int part = m.domains[static_cast<std::size_t>(m.childless_domains[k])].part;
    const std::size_t end = std::min(k + kLaneGroupSize, m.childless_domains.size());
    for (++k; k < end && m.domains[static_cast<std::size_t>(m.childless_domains[k])].part == part;
         ++k) {
    }
  }
  m.childless_groups.push_back(static_cast<int>(m.childless_domains.size()));
  // The domains with children of each batched part placed twice or more, in as few lane groups
  // as fit and of even sizes (11 domains: 6 and 5).
  m.parent_lane_groups.push_back(0);
  for (std::size_t p = 0; p < m.parts.size(); ++p) {
    if (!m.parts[p].batched) continue;
    std::vector<int> parents;
    for (const int i : m.parts[p].domains)
      if (m.domains[static_cast<std::size_t>(i)].num_children > 0) parents.push_back(i);
    const int n = static_cast<int>(parents.size());
    if (n < 2) continue;
    const int groups =
        (n + static_cast<int>(kLaneGroupSize) - 1) / static_cast<int>(kLaneGroupSize);
    for (int g = 0, k = 0; g < groups; ++g) {
      const int size = n / groups + (g < n % groups ? 1 : 0);
      for (int end = k + size; k < end; ++k)
        m.parent_lane_domains.push_back(parents[static_cast<std::size_t>(k)]);
      m.parent_lane_groups.push_back(static_cast<int>(m.parent_lane_domains.size()));
    }
  }
}

// L1's constant lumped mass of every domain with children, and the state layout: each
// part's domains one contiguous r by n block.
void compile_lumping_and_layout(Model& m) {
  for (const int i : m.parent_domains) {
    Domain& domain = m.domains[static_cast<std::size_t>(i)];
    domain.interface_lumped_mass = Eigen::MatrixXd::Identity(domain.r, domain.r);
    for (int k = 0; k < domain.num_children; ++k) {
      const int c = m.children[static_cast<std::size_t>(domain.first_child + k)];
      const Domain& child = m.domains[static_cast<std::size_t>(c)];
      if (domain.r > 0 && child.interface.bases_cols == domain.r) {
        // â in double from the 16-bit columns the step reads.
        const InterfaceBases bases = m.interface_bases_of(c);
        Eigen::MatrixXd a(3, domain.r);
        for (Eigen::Index l = 0; l < domain.r; ++l) a.col(l) = centroid_column(bases, l);
        domain.interface_lumped_mass.noalias() += child.subtree_mass * (a.transpose() * a);
      }
    }
  }
  for (Part& proto : m.parts) {
    proto.dof_offset = m.num_dofs;
    for (int i : proto.domains) {
      m.domains[static_cast<std::size_t>(i)].dof_offset = m.num_dofs;
      m.num_dofs += proto.r;
    }
    m.max_r = std::max(m.max_r, proto.r);
  }
}

// A free root carries the whole tree's rest inertia; an anchored one its mass.
void compile_root_inertia(Model& m) {
  if (m.free_root) {
    const Domain& root = m.domains[0];
    m.total_mass = root.subtree_mass;
    m.root_center_of_mass = root.subtree_center_of_mass;
    m.root_inertia = root.subtree_inertia;
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(m.root_inertia);
    if (!(m.total_mass > 0) || eig.info() != Eigen::Success || !(eig.eigenvalues()(0) > 0))
      throw OptionError("domain 0 ('" + root.name +
                        "') flies freely but the model has no positive mass and inertia tensor "
                        "for it (re-run `ramus precompute`)");
    m.root_inertia_inverse = m.root_inertia.inverse();
  } else {
    m.total_mass = m.domains[0].subtree_mass;
  }
}

// C0 averaging (how many domain copies each global vertex has), the render surfaces, provenance,
// and the settings (the file's, one entry per domain).
void compile_globals(ReducedModel& data, Model& m) {
  const int num = static_cast<int>(data.domains.size());
  m.num_global_vertices = data.num_global_vertices > 0
                              ? data.num_global_vertices
                              : static_cast<int>(m.part_of(0).rest_positions.rows());
  m.global_copy_count.setZero(m.num_global_vertices);
  for (int i = 0; i < num; ++i) {
    const Eigen::VectorXi& g = m.domains[static_cast<std::size_t>(i)].global_vertices;
    for (Eigen::Index k = 0; k < g.size(); ++k) {
      if (g(k) < 0 || g(k) >= m.num_global_vertices)
        throw OptionError(domain_label(data, i) + ": global vertex index " + std::to_string(g(k)) +
                          " out of range");
      if (m.global_copy_count(g(k)) == std::numeric_limits<std::uint16_t>::max())
        throw OptionError(domain_label(data, i) + ": global vertex " + std::to_string(g(k)) +
                          " is held by more than 65,535 domains");
      ++m.global_copy_count(g(k));
    }
  }
  m.render = compile_render_mesh(data, m);
  m.provenance = std::move(data.provenance);

  // Settings: the file's, one entry per domain.
  m.settings = std::move(data.settings);
  if (m.settings.domains.empty()) m.settings.domains.assign(static_cast<std::size_t>(num), {});
  if (const std::string problem = find_settings_problem(m.settings, num); !problem.empty())
    throw OptionError("runtime settings: " + problem);
}

}  // namespace

std::shared_ptr<const Model> compile_model(ReducedModel data) {
  const int num = static_cast<int>(data.domains.size());
  const int num_parts = static_cast<int>(data.parts.size());
  if (num == 0) throw OptionError("compile_model: the model has no domain");
  if (num_parts == 0) throw OptionError("compile_model: the model has no part");
  auto model = std::make_shared<Model>();
  static std::atomic<std::uint64_t> compiled{0};
  model->identity = ++compiled;
  Model& m = *model;
  m.free_root = part_of(data, 0).fixed_vertices.size() == 0;
  check_model_data(data, m.free_root);
  compile_domains(data, m);
  compile_parts(data, m);
  compile_step_lists(m);
  compile_lumping_and_layout(m);
  compile_root_inertia(m);
  compile_globals(data, m);
  return model;
}

}  // namespace ramus
