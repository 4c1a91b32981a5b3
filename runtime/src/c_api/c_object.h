// The C interface's handles and the helpers its files share (runtime internals): a model
// handle owns a shared Model, an object handle a Simulator and the object's world placement;
// fail records the message ramus_last_error() returns, guarded turns exceptions into statuses.
#pragma once

#include <Eigen/Core>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "ramus/error.h"
#include "ramus/ramus.h"
#include "ramus/runtime/simulator.h"

struct ramus_model {
  std::shared_ptr<const ramus::Model> model;
};

struct ramus_object {
  ramus::Simulator simulator;
  // World placement: world = rotation model + translation; gravity and wind kept in the world.
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d translation = Eigen::Vector3d::Zero();
  Eigen::Vector3d world_gravity;
  Eigen::Vector3d world_wind;
  // The domain, and its vertex, holding each global vertex (its first copy).
  std::vector<int> owner_domain, owner_vertex;
  std::vector<int> boundary_vertices;  // global vertices on the tet mesh's boundary
  std::vector<double> positions;       // 3 #V, model axes (picking)

  explicit ramus_object(std::shared_ptr<const ramus::Model> model)
      : simulator(std::move(model)),
        world_gravity(simulator.settings().gravity),
        world_wind(simulator.settings().wind.mean_velocity) {}
};

namespace ramus::c_api {

/// Records `message` for ramus_last_error() on this thread, hands both to the error callback
/// (ramus_set_error_callback) and returns `status`.
ramus_status fail(ramus_status status, const std::string& message);
/// Clears ramus_last_error() on this thread and returns RAMUS_OK (allocation-free).
ramus_status succeed() noexcept;

/// RAMUS_OK when a caller's buffer holds `expected` values; otherwise the sizes in the message.
ramus_status check_size(size_t count, long expected, const char* what);

/// True when all n values are finite.
bool finite(const double* v, int n);

/// A null pointer or non-finite values: the argument's name in the message.
ramus_status check_vector(const double* v, int n, const char* what);

// Runs `body` (which returns a status), turning what it throws into a status and a message.
template <typename Body>
ramus_status guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (const ramus::InputError& e) {
    return fail(RAMUS_FILE_ERROR, e.what());
  } catch (const ramus::OptionError& e) {
    return fail(RAMUS_INVALID_ARGUMENT, e.what());
  } catch (const std::bad_alloc&) {
    return fail(RAMUS_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return fail(RAMUS_INTERNAL_ERROR, e.what());
  } catch (...) {
    return fail(RAMUS_INTERNAL_ERROR, "unknown error");
  }
}

}  // namespace ramus::c_api
