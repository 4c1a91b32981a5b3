// The C interface's models (ramus/ramus.h): loading from a path or from memory, with the trust
// a caller gives (public keys, signed only), and the model's counts and triangles.
#include <new>
#include <string>

#include "c_object.h"
#include "ramus/ramus.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/io/model_signature.h"
#include "ramus/runtime/model/model_geometry.h"

using ramus::c_api::check_size;
using ramus::c_api::fail;
using ramus::c_api::guarded;
using ramus::c_api::succeed;

namespace {

// The trust of a load: the public keys (each named by its index when malformed) and whether
// only signed files are accepted.
ramus_status parse_trust(const char* const* public_keys_hex, size_t num_keys, int signed_only,
                         ramus::ModelTrust& trust) {
  if (num_keys > 0 && !public_keys_hex) return fail(RAMUS_INVALID_ARGUMENT, "keys are NULL");
  trust.require_signature = signed_only != 0;
  for (size_t k = 0; k < num_keys; ++k) {
    const std::string source = "public key " + std::to_string(k);
    if (!public_keys_hex[k]) return fail(RAMUS_INVALID_ARGUMENT, source + " is NULL");
    try {
      trust.trusted_keys.push_back(ramus::parse_public_key(public_keys_hex[k], source));
    } catch (const ramus::InputError& e) {
      return fail(RAMUS_INVALID_ARGUMENT, e.what());
    }
  }
  if (trust.require_signature && trust.trusted_keys.empty())
    return fail(RAMUS_INVALID_ARGUMENT, "signed_only needs at least one public key");
  return RAMUS_OK;
}

}  // namespace

extern "C" {

ramus_model* ramus_model_load(const char* path, ramus_status* status) {
  ramus_model* model = nullptr;
  const ramus_status s = guarded([&] {
    if (!path) return fail(RAMUS_INVALID_ARGUMENT, "model path is NULL");
    model = new ramus_model{ramus::load_model(path)};
    return succeed();
  });
  if (status) *status = s;
  return model;
}

ramus_model* ramus_model_load_signed(const char* path, const char* const* public_keys_hex,
                                     size_t num_keys, int signed_only, ramus_status* status) {
  ramus_model* model = nullptr;
  const ramus_status s = guarded([&] {
    if (!path) return fail(RAMUS_INVALID_ARGUMENT, "model path is NULL");
    ramus::ModelTrust trust;
    if (ramus_status k = parse_trust(public_keys_hex, num_keys, signed_only, trust); k != RAMUS_OK)
      return k;
    model = new ramus_model{ramus::load_model(path, trust)};
    return succeed();
  });
  if (status) *status = s;
  return model;
}

ramus_model* ramus_model_load_memory(const void* data, size_t size, const char* name,
                                     const char* const* public_keys_hex, size_t num_keys,
                                     int signed_only, ramus_status* status) {
  ramus_model* model = nullptr;
  const ramus_status s = guarded([&] {
    if (!data) return fail(RAMUS_INVALID_ARGUMENT, "model bytes are NULL");
    ramus::ModelTrust trust;
    if (ramus_status k = parse_trust(public_keys_hex, num_keys, signed_only, trust); k != RAMUS_OK)
      return k;
    model = new ramus_model{ramus::compile_model(
        ramus::read_model_memory(data, size, name ? name : "<model in memory>", trust))};
    return succeed();
  });
  if (status) *status = s;
  return model;
}

void ramus_model_free(ramus_model* model) {
  delete model;
}

int ramus_model_num_domains(const ramus_model* model) {
  return model ? model->model->num_domains() : 0;
}

int ramus_model_num_vertices(const ramus_model* model) {
  return model ? model->model->num_global_vertices : 0;
}

int ramus_model_num_boundary_triangles(const ramus_model* model) {
  // (Derived from the parts' surfaces on each call: not a per-frame call.)
  if (!model) return 0;
  try {
    return static_cast<int>(ramus::global_boundary_triangles(*model->model).rows());
  } catch (const std::bad_alloc&) {
    fail(RAMUS_OUT_OF_MEMORY, "boundary triangles: out of memory");
    return 0;
  }
}

ramus_status ramus_model_boundary_triangles(const ramus_model* model, int* out, size_t count) {
  if (!model || !out) return fail(RAMUS_INVALID_ARGUMENT, "boundary triangles: NULL argument");
  return guarded([&] {
    const Eigen::MatrixX3i f = ramus::global_boundary_triangles(*model->model);
    if (ramus_status s = check_size(count, 3 * f.rows(), "boundary triangles"); s != RAMUS_OK)
      return s;
    for (Eigen::Index t = 0; t < f.rows(); ++t)
      for (int c = 0; c < 3; ++c) out[3 * t + c] = f(t, c);
    return succeed();
  });
}

}  // extern "C"
