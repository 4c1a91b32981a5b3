#include "ramus/precompute/model/model_file_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>
#include <vector>

#include "ramus/error.h"
#include "io/hdf5/hdf5_file.h"  // runtime internals: the HDF5 wrapper
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/version.h"

namespace ramus {

namespace {

void write_system_force(const hdf5::Group& g, const SystemForceIntegrals& w) {
  g.write_matrix("w1", w.w1);
  g.write_matrix("w2", w.w2);
  g.write_vector("w3", w.w3);
  g.write_matrix("w4", w.w4);
  g.write_matrix("w5", w.w5);
  g.write_matrix("w6", w.w6);
  g.write_matrix("w7", w.w7);
}

// /runtime (docs/FORMAT.md): the settings the runtime uses by default, one entry per domain.
void write_runtime_settings(const hdf5::Group& g, const RuntimeSettings& s, int num_domains) {
  g.write_double_attribute("time_step", s.time_step);
  g.write_vector("gravity", Eigen::VectorXd(s.gravity));
  g.write_string_attribute("lumping", to_string(s.lumping));
  g.write_double_attribute("newmark_beta", s.newmark_beta);
  g.write_double_attribute("newmark_gamma", s.newmark_gamma);
  g.write_int_attribute("newton_iterations", s.newton_iterations);
  g.write_double_attribute("newton_tolerance", s.newton_tolerance);
  g.write_double_attribute("max_coordinate", s.max_coordinate);
  const std::vector<NodeSettings> nodes =
      s.nodes.empty() ? std::vector<NodeSettings>(static_cast<std::size_t>(num_domains)) : s.nodes;
  Eigen::VectorXi integrators(num_domains);
  Eigen::VectorXd alpha(num_domains), beta(num_domains), scale(num_domains);
  for (int i = 0; i < num_domains; ++i) {
    const NodeSettings& n = nodes[static_cast<std::size_t>(i)];
    integrators(i) = static_cast<int>(n.integrator);
    alpha(i) = n.rayleigh_mass;
    beta(i) = n.rayleigh_stiffness;
    scale(i) = n.stiffness_scale;
  }
  g.write_vector("nodes/integrator", integrators);
  g.write_vector("nodes/rayleigh_mass", alpha);
  g.write_vector("nodes/rayleigh_stiffness", beta);
  g.write_vector("nodes/stiffness_scale", scale);
}

void write_domain(const hdf5::Group& g, const ReducedDomain& d) {
  g.write_string_attribute("name", d.name);
  g.write_int_attribute("num_rigid_modes", d.num_rigid_modes);
  g.write_double_attribute("mass", d.mass);
  g.write_int_attribute("r", d.polynomial.r);

  g.write_matrix("mesh/rest_positions", d.rest_positions);
  g.write_matrix("mesh/tets", d.tets);
  g.write_matrix("mesh/surface_triangles", d.surface_triangles);
  if (d.labels.size() != 0) g.write_vector("mesh/labels", d.labels);
  g.write_vector("material/youngs_modulus", d.youngs_modulus);
  g.write_vector("material/poisson_ratio", d.poisson_ratio);
  g.write_vector("material/density", d.density);
  g.write_vector("fixed_vertices", d.fixed_vertices);

  g.write_matrix("basis", d.basis);
  g.write_vector("basis_eigenvalues", d.basis_eigenvalues);
  g.write_vector("linear_mode_eigenvalues", d.linear_mode_eigenvalues);
  g.write_matrix("gravity_basis", d.gravity_basis);

  g.write_vector("polynomial/quadratic", d.polynomial.quadratic);
  g.write_matrix("polynomial/cubic", d.polynomial.cubic);
  g.write_vector("polynomial/quartic", pack_upper_triangle(d.polynomial.quartic));

  g.write_int_attribute("parent", d.parent);
  g.write_vector("frame/origin", d.frame_origin);
  g.write_matrix("frame/rotation", d.frame_rotation);
  g.write_vector("global_vertices", d.global_vertices);

  if (d.parent >= 0) {  // the root has no interface (find_model_inconsistency checked it empty)
    const ParentInterface& f = d.interface;
    const hdf5::Group link = g.create_group("interface");
    link.write_int_attribute("planar", f.planar ? 1 : 0);
    link.write_vector("parent_vertices", f.parent_vertices);
    link.write_vector("child_vertices", f.child_vertices);
    link.write_vector("weights", f.weights);
    link.write_vector("centroid", f.centroid);
    link.write_matrix("centroid_basis", f.centroid_basis);
    link.write_matrix("rest_rotation", f.rest_rotation);
    link.write_matrix("rotation_basis", f.rotation_basis);
    link.write_matrix("covariance", f.covariance);
  }

  // Absent when not computed; a rigid domain (r = 0) always has its (empty) integrals, in their
  // documented shapes.
  if (has_system_force(d)) {
    write_system_force(g.create_group("system_force"), d.system_force);
  } else if (d.basis.cols() == 0) {
    SystemForceIntegrals none;
    none.w1.resize(3, 0);
    none.w2.resize(3, 0);
    none.w5.resize(3, 0);
    write_system_force(g.create_group("system_force"), none);
  }

  const hdf5::Group subtree = g.create_group("subtree");
  subtree.write_double_attribute("mass", d.subtree_mass);
  subtree.write_vector("center_of_mass", d.subtree_center_of_mass);
  subtree.write_matrix("inertia", d.subtree_inertia);
}

void write_embedded_surface(const hdf5::Group& g, const EmbeddedSurface& s) {
  g.write_matrix("rest_positions", s.rest_positions);
  g.write_matrix("triangles", s.triangles);
  g.write_vector("domain", s.domain);
  g.write_vector("tet", s.tet);
  g.write_matrix("barycentric", s.barycentric);
}

void write_contents(const hdf5::File& file, const ReducedModel& model) {
  const hdf5::Group root = file.root();
  root.write_string_attribute("format", kModelFormatName);
  root.write_int_attribute("format_version", kModelFormatVersion);
  root.write_string_attribute("ramus_version", version_string());

  const hdf5::Group provenance = root.create_group("provenance");
  const ModelProvenance& p = model.provenance;
  provenance.write_string_attribute("tool_version", p.tool_version);
  provenance.write_string_attribute("created_utc", p.created_utc);
  provenance.write_string_attribute("spec_path", p.spec_path);
  provenance.write_string_attribute("spec_json", p.spec_json);
  provenance.write_string_attribute("mesh_path", p.mesh_path);
  provenance.write_uint64_attribute("input_hash", p.input_hash);
  provenance.write_string_attribute("options_json", p.options_json);

  const hdf5::Group domains = root.create_group("domains");
  domains.write_int_attribute("num_domains", static_cast<int>(model.domains.size()));
  domains.write_int_attribute("num_global_vertices", model.num_global_vertices);
  for (std::size_t k = 0; k < model.domains.size(); ++k) {
    write_domain(domains.create_group("domain_" + std::to_string(k)), model.domains[k]);
  }
  root.write_matrix("global_surface_triangles", model.global_surface_triangles);
  if (model.embedded_surface.rest_positions.rows() > 0) {
    write_embedded_surface(root.create_group("embedded_surface"), model.embedded_surface);
  }
  write_runtime_settings(root.create_group("runtime"), model.settings,
                         static_cast<int>(model.domains.size()));
}

// Forces the written bytes to the disk before the rename makes them the model.
void sync_to_disk(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw Error("cannot reopen '" + path + "' to flush it");
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) throw Error("cannot flush '" + path + "' to disk");
}

}  // namespace

void write_model_file(const ReducedModel& model, const std::string& path) {
  const std::string problem = find_model_inconsistency(model);
  if (!problem.empty()) throw Error("cannot write model file '" + path + "': " + problem);

  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!folder.empty() && !std::filesystem::is_directory(folder, ec)) {
    throw Error("cannot write model file '" + path + "': folder '" + folder.string() +
                "' does not exist");
  }

  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  const auto remove_tmp = [&tmp] {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
  };
  try {
    {
      hdf5::File file = hdf5::File::create(tmp);
      write_contents(file, model);  // every Group is closed on return
      file.close();
    }
    sync_to_disk(tmp);
    std::filesystem::rename(tmp, path, ec);
    if (ec) throw Error("cannot rename '" + tmp + "' to '" + path + "': " + ec.message());
  } catch (const Error& e) {
    remove_tmp();
    throw Error("cannot write model file '" + path + "': " + e.what());
  } catch (...) {
    remove_tmp();
    throw;
  }
}

}  // namespace ramus
