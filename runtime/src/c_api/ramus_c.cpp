// The C interface (ramus/ramus.h) over Simulator: handles own a shared Model or a Simulator plus
// the object's world placement; every entry point catches and turns exceptions into statuses.
#include "ramus/ramus.h"

#include <Eigen/Core>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "ramus/error.h"
#include "ramus/runtime/data/settings_table.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/simulator.h"
#include "ramus/runtime/version.h"

#include "c_object.h"
#include "ramus/runtime/model/model_geometry.h"

namespace {

thread_local std::string last_error;

// The error callback and its user data, set together (ramus_set_error_callback).
std::mutex callback_mutex;
ramus_error_callback error_callback = nullptr;
void* error_callback_data = nullptr;

}  // namespace

namespace ramus::c_api {

ramus_status fail(ramus_status status, const std::string& message) {
  last_error = message;
  ramus_error_callback callback = nullptr;
  void* data = nullptr;
  {
    const std::lock_guard<std::mutex> lock(callback_mutex);
    callback = error_callback;
    data = error_callback_data;
  }
  if (callback) callback(status, last_error.c_str(), data);
  return status;
}

ramus_status succeed() noexcept {
  last_error.clear();
  return RAMUS_OK;
}

bool finite(const double* v, int n) {
  for (int i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) return false;
  return true;
}

ramus_status check_size(size_t count, long expected, const char* what) {
  if (count != static_cast<size_t>(expected))
    return fail(RAMUS_INVALID_ARGUMENT, std::string(what) + ": the buffer holds " +
                                            std::to_string(count) + " values, expected " +
                                            std::to_string(expected));
  return RAMUS_OK;
}

ramus_status check_vector(const double* v, int n, const char* what) {
  if (!v) return fail(RAMUS_INVALID_ARGUMENT, std::string(what) + " is NULL");
  if (!finite(v, n)) return fail(RAMUS_INVALID_ARGUMENT, std::string(what) + " is not finite");
  return RAMUS_OK;
}

}  // namespace ramus::c_api

using ramus::c_api::check_size;
using ramus::c_api::check_vector;
using ramus::c_api::fail;
using ramus::c_api::finite;
using ramus::c_api::guarded;
using ramus::c_api::succeed;

namespace {

ramus_status from_step(ramus::StepStatus status) {
  switch (status) {
    case ramus::StepStatus::kOk:
      return succeed();
    case ramus::StepStatus::kNonFinite:
      return fail(RAMUS_NON_FINITE, "step: a coordinate became NaN or inf");
    case ramus::StepStatus::kDiverged:
      return fail(RAMUS_DIVERGED, "step: a domain deformed beyond its divergence bound");
    case ramus::StepStatus::kSolverFailed:
      return fail(RAMUS_SOLVER_FAILED, "step: an integrator's decomposition failed");
    case ramus::StepStatus::kInvalidSettings:
      return fail(RAMUS_INVALID_ARGUMENT, "step: the settings do not pass the checks");
    case ramus::StepStatus::kWrongModel:
      return fail(RAMUS_INVALID_ARGUMENT, "step: the object's state is not its model's");
  }
  return fail(RAMUS_INTERNAL_ERROR, "step: unknown status");
}

// Edits the settings in place (edit(RuntimeSettings&), checked, allocation-free) with the world's
// gravity and wind mean velocity turned into model axes; the object keeps those world vectors
// only when the edit passes the checks (OptionError otherwise).
template <typename Edit>
void edit_settings(ramus_object& o, Edit&& edit, const Eigen::Vector3d& world_gravity,
                   const Eigen::Vector3d& world_wind) {
  o.simulator.edit_settings([&](ramus::RuntimeSettings& settings) {
    edit(settings);
    settings.gravity = o.rotation.transpose() * world_gravity;
    settings.wind.mean_velocity = o.rotation.transpose() * world_wind;
  });
  o.world_gravity = world_gravity;
  o.world_wind = world_wind;
}
template <typename Edit>
void edit_settings(ramus_object& o, Edit&& edit) {
  edit_settings(o, std::forward<Edit>(edit), o.world_gravity, o.world_wind);
}

// out (3 #V or 3 #S, model axes) moved to the world in place.
template <typename Scalar>
void to_world(const ramus_object& o, Scalar* out, Eigen::Index points) {
  Eigen::Map<Eigen::Matrix<Scalar, 3, Eigen::Dynamic>> x(out, 3, points);
  const Eigen::Matrix<Scalar, 3, 3> R = o.rotation.cast<Scalar>();
  const Eigen::Matrix<Scalar, 3, 1> t = o.translation.cast<Scalar>();
  for (Eigen::Index p = 0; p < points; ++p) x.col(p) = R * x.col(p) + t;
}

template <typename Scalar>
ramus_status vertex_positions(ramus_object* o, Scalar* out, size_t count) {
  if (!o || !out) return fail(RAMUS_INVALID_ARGUMENT, "vertex positions: NULL object or buffer");
  const int V = o->simulator.model().num_global_vertices;
  if (ramus_status s = check_size(count, 3L * V, "vertex positions"); s != RAMUS_OK) return s;
  o->simulator.render_positions(out);
  to_world(*o, out, V);
  return RAMUS_OK;
}

// The object setting `name` and the checks of its arguments shared by get and set: it exists and
// is the object's (not a run's scenario), the buffer fits it, the domain exists.
ramus_status find_object_setting(const ramus_object* object, const char* name, int domain,
                                 const double* values, size_t count, bool every_domain_allowed,
                                 const ramus::SettingInfo*& info) {
  if (!object || !name || !values)
    return fail(RAMUS_INVALID_ARGUMENT, "setting: NULL object, name or values");
  info = ramus::find_setting(name);
  if (!info || info->scope == ramus::SettingScope::kScenario ||
      info->scope == ramus::SettingScope::kCloth || info->scope == ramus::SettingScope::kFullSpace)
    return fail(RAMUS_INVALID_ARGUMENT, std::string("setting \"") + name +
                                            "\": no such setting (docs/SPEC.md, \"Settings\")");
  const long expected = info->type == ramus::SettingType::kVector3 ? 3 : 1;
  if (ramus_status s = check_size(count, expected, info->name); s != RAMUS_OK) return s;
  const int n = object->simulator.model().num_domains();
  if (info->scope == ramus::SettingScope::kDomain && !(domain >= 0 && domain < n) &&
      !(every_domain_allowed && domain == -1))
    return fail(RAMUS_INVALID_ARGUMENT, std::string(info->name) + ": domain " +
                                            std::to_string(domain) + " does not exist (" +
                                            std::to_string(n) + " domains" +
                                            (every_domain_allowed ? "; -1: every domain)" : ")"));
  return RAMUS_OK;
}

// The world-axes vector of the object that a setting is kept as (gravity, the wind), or null.
template <typename Object>
auto world_vector(Object& o, const ramus::SettingInfo& info) -> decltype(&o.world_gravity) {
  if (std::string_view(info.name) == "gravity") return &o.world_gravity;
  if (std::string_view(info.name) == "wind.mean_velocity") return &o.world_wind;
  return nullptr;
}

}  // namespace

extern "C" {

const char* ramus_version(void) {
  return ramus::version_string();
}

const char* ramus_last_error(void) {
  return last_error.c_str();
}

void ramus_set_error_callback(ramus_error_callback callback, void* user_data) {
  const std::lock_guard<std::mutex> lock(callback_mutex);
  error_callback = callback;
  error_callback_data = user_data;
}

const char* ramus_status_name(ramus_status status) {
  switch (status) {
    case RAMUS_OK:
      return "ok";
    case RAMUS_NON_FINITE:
      return "non-finite state";
    case RAMUS_DIVERGED:
      return "diverged";
    case RAMUS_SOLVER_FAILED:
      return "solver failed";
    case RAMUS_INVALID_ARGUMENT:
      return "invalid argument";
    case RAMUS_FILE_ERROR:
      return "file error";
    case RAMUS_OUT_OF_MEMORY:
      return "out of memory";
    case RAMUS_INTERNAL_ERROR:
      return "internal error";
  }
  return "unknown status";
}

ramus_object* ramus_object_create(const ramus_model* model, ramus_status* status) {
  ramus_object* object = nullptr;
  const ramus_status s = guarded([&] {
    if (!model) return fail(RAMUS_INVALID_ARGUMENT, "model is NULL");
    auto made = std::make_unique<ramus_object>(model->model);
    const ramus::Model& m = *model->model;
    made->owner_domain.assign(static_cast<std::size_t>(m.num_global_vertices), -1);
    made->owner_vertex.assign(static_cast<std::size_t>(m.num_global_vertices), -1);
    for (int i = m.num_domains(); i-- > 0;) {  // (ascending domains last: the first copy wins)
      const Eigen::VectorXi& g = m.domains[static_cast<std::size_t>(i)].global_vertices;
      for (Eigen::Index v = 0; v < g.size(); ++v) {
        made->owner_domain[static_cast<std::size_t>(g(v))] = i;
        made->owner_vertex[static_cast<std::size_t>(g(v))] = static_cast<int>(v);
      }
    }
    std::vector<char> boundary(static_cast<std::size_t>(m.num_global_vertices), 0);
    const Eigen::MatrixX3i faces = ramus::global_boundary_triangles(m);
    for (Eigen::Index t = 0; t < faces.size(); ++t)
      boundary[static_cast<std::size_t>(faces(t))] = 1;
    for (int v = 0; v < m.num_global_vertices; ++v)
      if (boundary[static_cast<std::size_t>(v)]) made->boundary_vertices.push_back(v);
    made->positions.resize(3 * static_cast<std::size_t>(m.num_global_vertices));
    made->simulator.reserve_vertex_forces(64);
    if (const ramus::StepStatus started = made->simulator.initialize();
        started != ramus::StepStatus::kOk)
      return from_step(started);
    object = made.release();
    return succeed();
  });
  if (status) *status = s;
  return object;
}

void ramus_object_free(ramus_object* object) {
  delete object;
}

ramus_status ramus_object_set_placement(ramus_object* object, const double rotation[9],
                                        const double translation[3]) {
  if (!object) return fail(RAMUS_INVALID_ARGUMENT, "placement: object is NULL");
  if (ramus_status s = check_vector(rotation, 9, "placement: rotation"); s != RAMUS_OK) return s;
  if (ramus_status s = check_vector(translation, 3, "placement: translation"); s != RAMUS_OK)
    return s;
  // A translation beyond 1e9 m leaves too few digits for a position (1e39 gave inf positions).
  if (!(Eigen::Map<const Eigen::Vector3d>(translation).cwiseAbs().maxCoeff() <= 1e9))
    return fail(RAMUS_INVALID_ARGUMENT,
                "placement: translation beyond 1e9 m (positions would lose every digit)");
  const Eigen::Matrix3d R =
      Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(rotation);
  const double error = (R.transpose() * R - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff();
  if (!(error < 1e-6) || !(R.determinant() > 0))
    return fail(RAMUS_INVALID_ARGUMENT,
                "placement: rotation is not a rotation (max |RᵀR - I| = " + std::to_string(error) +
                    ", det " + std::to_string(R.determinant()) + ")");
  return guarded([&] {
    object->rotation = R;
    object->translation = Eigen::Map<const Eigen::Vector3d>(translation);
    edit_settings(*object, [](ramus::RuntimeSettings&) {});
    // A teleport: a moved anchor comes back to rest in the new placement.
    const ramus::Model& m = object->simulator.model();
    const ramus::AnchorMotion anchor = object->simulator.anchor_motion();
    if (!m.free_root && (anchor.pose.rotation != m.domains.front().rest_rotation ||
                         anchor.pose.translation != m.domains.front().rest_origin ||
                         ramus::anchor_moves(m, object->simulator.state()))) {
      ramus::AnchorMotion rest;
      rest.pose.rotation = m.domains.front().rest_rotation;
      rest.pose.translation = m.domains.front().rest_origin;
      object->simulator.set_anchor_motion(rest);
    }
    return succeed();
  });
}

ramus_status ramus_object_set_time_step(ramus_object* object, double time_step) {
  return ramus_object_set_setting(object, "time_step", -1, &time_step, 1);
}

// The names of the settings an object has (whole object, wind, per domain), in the list's order.
static const std::vector<const char*>& object_setting_names() {
  static const std::vector<const char*> names = [] {
    std::vector<const char*> listed;
    for (const ramus::SettingInfo& info : ramus::settings_table())
      if (info.scope == ramus::SettingScope::kObject || info.scope == ramus::SettingScope::kWind ||
          info.scope == ramus::SettingScope::kDomain)
        listed.push_back(info.name);
    return listed;
  }();
  return names;
}

int ramus_setting_count(void) {
  return static_cast<int>(object_setting_names().size());
}

const char* ramus_setting_name(int index) {
  const auto& names = object_setting_names();
  if (index < 0 || index >= static_cast<int>(names.size())) return nullptr;
  return names[static_cast<std::size_t>(index)];
}

ramus_status ramus_object_get_setting(const ramus_object* object, const char* name, int domain,
                                      double* values, size_t count) {
  const ramus::SettingInfo* info = nullptr;
  if (ramus_status s = find_object_setting(object, name, domain, values, count, false, info);
      s != RAMUS_OK)
    return s;
  return guarded([&] {
    ramus::SettingValue value = ramus::setting_value(object->simulator.settings(), *info, domain);
    if (const Eigen::Vector3d* w = world_vector(*object, *info))
      value.v = {(*w)(0), (*w)(1), (*w)(2)};
    std::copy_n(value.v.begin(), count, values);
    return succeed();
  });
}

ramus_status ramus_object_set_setting(ramus_object* object, const char* name, int domain,
                                      const double* values, size_t count) {
  const ramus::SettingInfo* info = nullptr;
  if (ramus_status s = find_object_setting(object, name, domain, values, count, true, info);
      s != RAMUS_OK)
    return s;
  ramus::SettingValue value;
  std::copy_n(values, count, value.v.begin());
  if (const std::string problem = ramus::setting_value_problem(*info, value); !problem.empty())
    return fail(RAMUS_INVALID_ARGUMENT, std::string(info->name) + ": " + problem);
  return guarded([&] {
    const Eigen::Vector3d given(value.v[0], value.v[1], value.v[2]);
    // Gravity and the wind are kept in world axes and turned into the model's.
    const std::string_view member(info->name);
    edit_settings(
        *object,
        [&](ramus::RuntimeSettings& settings) {
          if (!world_vector(*object, *info)) ramus::set_setting(settings, *info, value, domain);
        },
        member == "gravity" ? given : object->world_gravity,
        member == "wind.mean_velocity" ? given : object->world_wind);
    return succeed();
  });
}

ramus_status ramus_object_set_integrator(ramus_object* object, ramus_integrator integrator) {
  if (!object) return fail(RAMUS_INVALID_ARGUMENT, "integrator: object is NULL");
  const int value = static_cast<int>(integrator);
  if (value < 1 || value > ramus::kNumIntegrators)
    return fail(RAMUS_INVALID_ARGUMENT, "integrator: " + std::to_string(value) +
                                            " is not one (1 to " +
                                            std::to_string(ramus::kNumIntegrators) + ")");
  return guarded([&] {
    edit_settings(*object, [&](ramus::RuntimeSettings& settings) {
      for (ramus::DomainSettings& n : settings.domains)
        n.integrator = static_cast<ramus::Integrator>(value);
    });
    return succeed();
  });
}

ramus_status ramus_object_set_damping(ramus_object* object, double alpha, double beta) {
  if (!object) return fail(RAMUS_INVALID_ARGUMENT, "damping: object is NULL");
  return guarded([&] {
    edit_settings(*object, [&](ramus::RuntimeSettings& settings) {  // (range-checked there)
      for (ramus::DomainSettings& n : settings.domains) {
        n.rayleigh_mass = alpha;
        n.rayleigh_stiffness = beta;
      }
    });
    return succeed();
  });
}

ramus_status ramus_object_set_gravity(ramus_object* object, const double gravity[3]) {
  if (!object) return fail(RAMUS_INVALID_ARGUMENT, "gravity: object is NULL");
  if (ramus_status s = check_vector(gravity, 3, "gravity"); s != RAMUS_OK) return s;
  return guarded([&] {
    edit_settings(
        *object, [](ramus::RuntimeSettings&) {}, Eigen::Map<const Eigen::Vector3d>(gravity),
        object->world_wind);
    return succeed();
  });
}

ramus_status ramus_object_set_wind(ramus_object* object, const double mean_velocity[3], double gust,
                                   double turbulence, int seed) {
  if (!object) return fail(RAMUS_INVALID_ARGUMENT, "wind: object is NULL");
  if (ramus_status s = check_vector(mean_velocity, 3, "wind: mean velocity"); s != RAMUS_OK)
    return s;
  return guarded([&] {
    edit_settings(  // (range-checked there)
        *object,
        [&](ramus::RuntimeSettings& settings) {
          settings.wind.gust = gust;
          settings.wind.turbulence = turbulence;
          settings.wind.seed = seed;
        },
        object->world_gravity, Eigen::Map<const Eigen::Vector3d>(mean_velocity));
    return succeed();
  });
}

ramus_status ramus_object_apply_force(ramus_object* object, int vertex, const double force[3]) {
  if (!object) return fail(RAMUS_INVALID_ARGUMENT, "force: object is NULL");
  if (ramus_status s = check_vector(force, 3, "force"); s != RAMUS_OK) return s;
  if (vertex < 0 || vertex >= static_cast<int>(object->owner_domain.size()))
    return fail(RAMUS_INVALID_ARGUMENT,
                "force: vertex " + std::to_string(vertex) + " does not exist (the model has " +
                    std::to_string(object->owner_domain.size()) + " vertices)");
  return guarded([&] {
    const auto v = static_cast<std::size_t>(vertex);
    object->simulator.add_vertex_force(
        object->owner_domain[v], object->owner_vertex[v],
        object->rotation.transpose() * Eigen::Map<const Eigen::Vector3d>(force));
    return succeed();
  });
}

ramus_status ramus_object_clear_forces(ramus_object* object) {
  if (!object) return fail(RAMUS_INVALID_ARGUMENT, "clear forces: object is NULL");
  object->simulator.clear_vertex_forces();
  return succeed();
}

int ramus_object_pick_vertex(ramus_object* object, const double origin[3],
                             const double direction[3], double max_distance,
                             double* distance_along) {
  if (!object || check_vector(origin, 3, "pick: origin") != RAMUS_OK ||
      check_vector(direction, 3, "pick: direction") != RAMUS_OK)
    return (void)fail(RAMUS_INVALID_ARGUMENT, "pick: NULL or non-finite argument"), -2;
  const Eigen::Vector3d d = Eigen::Map<const Eigen::Vector3d>(direction);
  if (!(d.norm() > 0) || !(max_distance >= 0))
    return (void)fail(RAMUS_INVALID_ARGUMENT, "pick: zero direction or negative distance"), -2;
  // The ray in model axes, against the boundary vertices' current positions.
  const Eigen::Vector3d o = object->rotation.transpose() *
                            (Eigen::Map<const Eigen::Vector3d>(origin) - object->translation);
  const Eigen::Vector3d u = object->rotation.transpose() * d.normalized();
  object->simulator.render_positions(object->positions.data());
  int best = -1;
  double best_off = std::numeric_limits<double>::infinity(), best_along = 0;
  for (const int v : object->boundary_vertices) {
    const Eigen::Vector3d x =
        Eigen::Map<const Eigen::Vector3d>(object->positions.data() + 3 * static_cast<long>(v));
    const double along = (x - o).dot(u);
    if (along < 0) continue;
    const double off = (x - o - along * u).norm();
    if (off <= max_distance && (off < best_off || (off == best_off && along < best_along))) {
      best = v;
      best_off = off;
      best_along = along;
    }
  }
  if (best >= 0 && distance_along) *distance_along = best_along;
  succeed();  // (a miss is no error)
  return best;
}

ramus_status ramus_object_step(ramus_object* object) {
  if (!object) return fail(RAMUS_INVALID_ARGUMENT, "step: object is NULL");
  return from_step(object->simulator.step());
}

double ramus_object_time(const ramus_object* object) {
  return object ? object->simulator.time() : 0.0;
}

ramus_status ramus_object_vertex_positions(ramus_object* object, double* out, size_t count) {
  return vertex_positions(object, out, count);
}

ramus_status ramus_object_vertex_positions_f(ramus_object* object, float* out, size_t count) {
  return vertex_positions(object, out, count);
}

}  // extern "C"
