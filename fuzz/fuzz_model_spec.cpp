// Fuzz target: the JSON model spec parser (one mesh or an assembly), and the runtime settings it
// derives; its colliders resolved against a small cube and drawn. Its custom mutator edits the
// JSON tree (json_mutator.h) and, one time in four, bytes.
#include <cstring>
#include <random>
#include <string>

#include "fuzz_target.h"
#include "json_mutator.h"
#include "ramus/error.h"
#include "ramus/precompute/contact/collider_surface.h"
#include "ramus/precompute/model/model_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const ramus::ModelSpec spec = ramus::parse_model_spec(text, "/fuzz/spec.json");
    ramus::spec_runtime_settings(spec, {"body"});
    // The colliders: defaults against a 1 m cube's corners (a barrier overlapping it is an
    // error), their level sets at the corners, their drawn surfaces.
    Eigen::MatrixX3d corners(8, 3);
    for (int k = 0; k < 8; ++k) corners.row(k) << (k & 1), ((k >> 1) & 1), ((k >> 2) & 1);
    std::vector<std::string> warnings;
    const ramus::ContactOptions contact = ramus::resolve_contact_options(
        spec.contact, spec.spec_path, corners, Eigen::VectorXd::Constant(8, 0.125), warnings);
    for (const ramus::ColliderContact& c : contact.colliders) {
      for (int k = 0; k < 8; ++k) ramus::sample_level_set(c.collider, corners.row(k), 0.5);
      ramus::collider_surface(c.collider, 2.0, 3);
    }
  } catch (const ramus::Error&) {
  }
  return 0;
}

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  std::mt19937_64 random(seed);
  std::string text(reinterpret_cast<const char*>(data), size);
  if (random() % 4 == 0 || !ramus::fuzz::mutate_json(text, random) || text.size() > max_size)
    return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}
