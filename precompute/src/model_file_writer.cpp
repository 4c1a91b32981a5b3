#include "ramus/precompute/model_file_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "ramus/error.h"
#include "ramus/runtime/hdf5_file.h"
#include "ramus/runtime/model_file.h"
#include "ramus/runtime/version.h"

namespace ramus {

namespace {

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
  for (std::size_t k = 0; k < model.domains.size(); ++k) {
    write_domain(domains.create_group("domain_" + std::to_string(k)), model.domains[k]);
  }
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
