// The C interface's per-frame calls allocate nothing (ramus/ramus.h): a game's frame of setters,
// forces, colliders, steps, readback (positions, render vertices with normals, the GPU's
// transforms and q), picking, per-domain frames, snapshots, reset and a batch,
// counted by the allocation counter that replaces malloc and operator new in this executable.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "ramus/ramus.h"
#include "support/allocation_counter.h"

namespace {

const std::string kModel = std::string(RAMUS_TEST_DATA_DIR) + "/models/small_beam_two_domains.h5";

}  // namespace

TEST_CASE("A frame of C calls allocates nothing", "[c_api][allocation]") {
  ramus_model* model = ramus_model_load(kModel.c_str(), nullptr);
  REQUIRE(model);
  ramus_object* object = ramus_object_create(model, nullptr);
  ramus_object* copy = ramus_object_create(model, nullptr);
  REQUIRE(object);
  REQUIRE(copy);
  const int V = ramus_model_num_vertices(model);
  std::vector<float> positions(3 * static_cast<std::size_t>(V));
  std::vector<float> drawn(6 * static_cast<std::size_t>(ramus_model_num_surface_vertices(model)));
  std::vector<float> transforms(16 * static_cast<std::size_t>(ramus_model_num_domains(model)));
  std::vector<float> coordinates(static_cast<std::size_t>(ramus_model_num_coordinates(model)));
  // (a snapshot's size grows with the forces and colliders it holds: room for more)
  std::vector<unsigned char> blob(2 * ramus_object_state_size(object, RAMUS_STATE_ALL));
  ramus_domain_info info{};
  REQUIRE(ramus_model_domain_info(model, 1, &info) == RAMUS_OK);
  std::vector<double> q(static_cast<std::size_t>(info.num_coordinates));
  ramus_collider sphere{};
  sphere.shape = RAMUS_SPHERE;
  sphere.size[0] = 0.05;
  const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  sphere.rotation[0] = sphere.rotation[4] = sphere.rotation[8] = 1;
  sphere.position[2] = 5;
  ramus_object* both[2] = {object, copy};
  ramus_status statuses[2];
  const int id = ramus_object_add_collider(object, &sphere, nullptr);
  REQUIRE(id >= 0);
  // Each call of a frame counted on its own (the first frame lists them: the warm-up, in which
  // the first call of each may size what it keeps), then 29 frames; every status collected.
  std::vector<std::pair<std::string, long>> per_call;
  per_call.reserve(64);
  std::size_t call = 0;
  int failed = 0;
  const auto measure = [&](const char* name, auto&& f) {
    ramus_status status = RAMUS_OK;
    const long n = ramus::test::count_allocations([&] { status = f(); });
    if (per_call.size() <= call)
      per_call.emplace_back(name, 0);
    else
      per_call[call].second += n;
    ++call;
    failed += status != RAMUS_OK;
  };
#define CALL(expr) measure(#expr, [&] { return (expr); })
  const auto frame = [&](int k) {
    call = 0;
    const double turn = 0.01 * k;
    const double rotation[9] = {
        std::cos(turn), -std::sin(turn), 0, std::sin(turn), std::cos(turn), 0, 0, 0, 1};
    const double translation[3] = {0.01 * k, 0, 0}, gravity[3] = {0, 0, -9.81};
    const double wind[3] = {2, 0, 0}, force[3] = {0, 0, 1}, time_step = 0.01;
    const double ray_origin[3] = {0, 0, 10}, ray_down[3] = {0, 0, -1}, sphere_at[3] = {0, 0, 5};
    double R[9], x[3], v[3], w[3], value = 0, contact[3];
    int active = 0;
    size_t written = 0;
    CALL(ramus_object_set_placement(object, rotation, translation));
    CALL(ramus_object_set_gravity(object, gravity));
    CALL(ramus_object_set_wind(object, wind, 0.2, 0.1, 3));
    CALL(ramus_object_set_time_step(object, time_step));
    CALL(ramus_object_set_setting(object, "rayleigh_mass", -1, &value, 1));
    CALL(ramus_object_get_setting(object, "time_step", -1, &value, 1));
    CALL(ramus_object_set_integrator(object, RAMUS_SEMI_IMPLICIT_BDF2));
    CALL(ramus_object_clear_forces(object));
    CALL(ramus_object_apply_force(object, V - 1, force));
    CALL(ramus_object_move_collider(object, id, identity, sphere_at, time_step));
    CALL(ramus_object_step(object));
    CALL(ramus_object_contact(object, contact, &active, nullptr));
    CALL(ramus_object_vertex_positions_f(object, positions.data(), positions.size()));
    CALL(ramus_object_render_vertices(object, drawn.data(), drawn.size(), 1));
    CALL(ramus_object_render_transforms(object, transforms.data(), transforms.size()));
    CALL(ramus_object_coordinates_f(object, coordinates.data(), coordinates.size()));
    CALL(ramus_object_domain_frame(object, 1, R, x));
    CALL(ramus_object_domain_velocity(object, 1, v, w));
    CALL(ramus_object_domain_coordinates(object, 1, q.data(), nullptr, q.size()));
    CALL(ramus_object_pick_vertex(object, ray_origin, ray_down, 0.5, nullptr) >= -1
             ? RAMUS_OK
             : RAMUS_INVALID_ARGUMENT);
    CALL(ramus_object_save_state(object, RAMUS_STATE_ALL, blob.data(), blob.size(), &written));
    CALL(ramus_object_restore_state(copy, blob.data(), written));
    CALL(ramus_object_copy_state(copy, object, RAMUS_STATE_PHYSICS));
    CALL(ramus_object_step(copy));
    CALL(ramus_object_reset(copy));
    CALL(ramus_step_objects(both, 2, 2, statuses) == 0 ? RAMUS_OK : RAMUS_INTERNAL_ERROR);
  };
#undef CALL
  for (int k = 0; k < 30; ++k) frame(k);
  std::string allocating;
  for (const auto& [name, count] : per_call)
    if (count) allocating += name + ": " + std::to_string(count) + "\n";
  CHECK(per_call.size() == 26);
  CHECK(failed == 0);
  INFO(allocating);
  CHECK(allocating.empty());
  ramus_object_free(copy);
  ramus_object_free(object);
  ramus_model_free(model);
}
