// A spec's colliders: every key parsed into the collider it describes, every wrong value named by
// its key, defaults resolved against the mesh, a barrier that starts overlapping refused; the
// colliders' drawn surfaces lie on their level sets; docs/SPEC.md holds the keys' table.
#include <catch2/catch.hpp>
#include <fstream>

#include "ramus/error.h"
#include "ramus/precompute/contact/collider_spec.h"
#include "ramus/precompute/contact/collider_surface.h"
#include "ramus/precompute/contact/grid_level_set.h"
#include "ramus/precompute/model/model_spec.h"
#include "support/generated_docs.h"
#include "support/temp_dir.h"
#include "support/test_meshes.h"

using namespace ramus;
using Catch::Matchers::Contains;

namespace {

// A spec with the given "colliders" (and extra top-level keys) over a mesh that need not exist
// for parsing errors (the mesh is checked to exist: a real file is written beside it).
ModelSpec spec_with(const test::TempDir& dir, const std::string& colliders,
                    const std::string& extra = "") {
  const std::string mesh = (dir.path() / "block.node").string();
  std::ofstream(mesh) << "0 3 0 0\n";
  const std::string path = (dir.path() / "spec.json").string();
  std::ofstream(path) << "{\"mesh\": \"block.node\", \"colliders\": " << colliders << extra << "}";
  return load_model_spec(path);
}

std::string error_of(const test::TempDir& dir, const std::string& colliders,
                     const std::string& extra = "") {
  try {
    spec_with(dir, colliders, extra);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("A spec's colliders are parsed into shapes, poses, motions and contact models",
          "[precompute][contact]") {
  test::TempDir dir("collider_spec");
  const ModelSpec spec = spec_with(
      dir,
      R"([{"shape": "half_space", "normal": [0, 1, 0], "position": [0, -1, 0], "friction": 0.4},
          {"shape": "box", "half_size": [1, 2, 3], "edge_radius": 0.5, "contact": "penalty",
           "delta": 0.01, "stiffness": 1e6, "velocity": [1, 0, 0],
           "rotation": {"axis": [0, 0, 1], "degrees": 90}},
          {"shape": "bowl", "inner_radius": 2, "thickness": 0.5, "angular_velocity": [0, 0, 1]}])",
      R"(, "contact": {"friction_speed": 0.002, "friction_model": "after_solve"}, "units": "cm")");
  REQUIRE(spec.contact.colliders.size() == 3);
  const ColliderSpec& floor = spec.contact.colliders[0];
  CHECK(floor.contact.collider.shape == ColliderShape::kHalfSpace);
  CHECK((floor.contact.collider.motion.initial.rotation * Eigen::Vector3d::UnitZ() -
         Eigen::Vector3d::UnitY())
            .norm() < 1e-12);
  CHECK(floor.contact.collider.motion.initial.translation.y() == Approx(-0.01));  // cm
  CHECK(floor.contact.friction == 0.4);
  CHECK(floor.contact.model == ContactModel::kBarrier);
  CHECK_FALSE(floor.delta);
  const ColliderSpec& box = spec.contact.colliders[1];
  CHECK(box.contact.collider.shape == ColliderShape::kRoundedBox);
  CHECK(box.contact.collider.size.isApprox(Eigen::Vector4d(0.01, 0.02, 0.03, 0.005)));
  CHECK(box.contact.model == ContactModel::kPenalty);
  CHECK(*box.delta == Approx(1e-4));
  CHECK(*box.stiffness == 1e6);
  CHECK(box.contact.collider.motion.linear_velocity.x() == Approx(0.01));
  CHECK((box.contact.collider.motion.initial.rotation * Eigen::Vector3d::UnitX() -
         Eigen::Vector3d::UnitY())
            .norm() < 1e-12);
  CHECK(spec.contact.colliders[2].contact.collider.motion.angular_velocity.z() == 1);
  CHECK(spec.contact.friction_speed == Approx(2e-5));
  CHECK(spec.contact.friction_model == FrictionModel::kAfterSolve);
}

TEST_CASE("Wrong collider values are named by their key", "[precompute][contact]") {
  test::TempDir dir("collider_spec_errors");
  CHECK_THAT(error_of(dir, R"([{"shape": "cone"}])"),
             Contains("colliders[0].shape: expected half_space, sphere"));
  CHECK_THAT(error_of(dir, R"([{"radius": 1}])"),
             Contains("colliders[0]: missing required key \"shape\""));
  CHECK_THAT(error_of(dir, R"([{"shape": "sphere"}])"),
             Contains("colliders[0]: missing required key \"radius\""));
  CHECK_THAT(error_of(dir, R"([{"shape": "box", "half_size": [1, 1, 1], "radius": 2}])"),
             Contains("colliders[0].radius: does not apply to a box"));
  CHECK_THAT(error_of(dir, R"([{"shape": "sphere", "radius": -1}])"),
             Contains("colliders[0]: radius must be positive (sphere)"));
  CHECK_THAT(error_of(dir, R"([{"shape": "box", "half_size": [1, 1, 0.1], "edge_radius": 0.5}])"),
             Contains("colliders[0]: edge radius must lie in [0, the smallest half size]"));
  CHECK_THAT(error_of(dir, R"([{"shape": "sphere", "radius": 1}, {"shape": "sphere",
                                "radius": 1, "friction": -0.1}])"),
             Contains("colliders[1].friction: must lie in [0, 100]"));
  CHECK_THAT(error_of(dir, R"([{"shape": "sphere", "radius": 1, "delta": 0}])"),
             Contains("colliders[0].delta: must be positive"));
  CHECK_THAT(error_of(dir, R"([{"shape": "half_space", "normal": [0, 0, 0]}])"),
             Contains("colliders[0].normal: must be non-zero"));
  CHECK_THAT(error_of(dir, R"([{"shape": "half_space", "normal": [0, 0, 1],
                                "rotation": {"axis": [1, 0, 0], "degrees": 3}}])"),
             Contains("give \"normal\" or \"rotation\", not both"));
  CHECK_THAT(error_of(dir, R"([{"shape": "sphere", "radius": 1, "contact": "glue"}])"),
             Contains("colliders[0].contact: expected barrier, penalty or constraint"));
  CHECK_THAT(error_of(dir, R"([{"shape": "half_space", "keyframes": [{"time": 1}, {"time": 1}]}])"),
             Contains("colliders[0].keyframes[1].time: keyframes must be in increasing time"));
  CHECK_THAT(error_of(dir, R"([{"shape": "half_space", "keyframes": [{"time": 0}]}])"),
             Contains("colliders[0].keyframes: expected an array of two or more"));
  CHECK_THAT(error_of(dir, R"([{"shape": "half_space", "velocity": [1, 0, 0],
                                "keyframes": [{"time": 0}, {"time": 1}]}])"),
             Contains("colliders[0].velocity: give keyframes or a constant motion, not both"));
  CHECK_THAT(error_of(dir, R"([{"shape": "box", "half_size": [1, 1, 1], "contact": "constraint",
                                "stiffness": 5}])"),
             Contains("colliders[0].stiffness: a constraint collider has no stiffness"));
  CHECK_THAT(error_of(dir, R"([{"shape": "sphere", "radius": 1, "colour": 3}])"),
             Contains("colliders[0]: unknown key \"colour\""));
  CHECK_THAT(error_of(dir, R"({"shape": "sphere"})"), Contains("colliders: expected an array"));
  CHECK_THAT(error_of(dir, "[]", R"(, "contact": {"friction_speed": -1})"),
             Contains("contact.friction_speed: must be positive"));
  CHECK_THAT(error_of(dir, "[]", R"(, "contact": {"friction_model": "sticky"})"),
             Contains("contact.friction_model: expected smoothed or after_solve"));
}

TEST_CASE("Collider defaults follow the mesh, and a barrier may not start overlapping it",
          "[precompute][contact]") {
  const TetMesh mesh = test::box_mesh(2, 2, 2, 0.1, 0.1, 0.1);  // diagonal 0.173 m
  const Eigen::VectorXd masses = Eigen::VectorXd::Constant(mesh.num_vertices(), 1.0 / 27);
  ContactSpec spec;
  ColliderSpec floor;
  floor.key = "colliders[0]";
  floor.contact.collider.motion.initial.translation = Eigen::Vector3d(0, 0, -0.001);
  spec.colliders = {floor};
  std::vector<std::string> warnings;
  ContactOptions options =
      resolve_contact_options(spec, "s.json", mesh.rest_positions, masses, warnings);
  CHECK(options.colliders[0].delta == Approx(1e-3 * std::sqrt(3) * 0.1));
  CHECK(options.colliders[0].stiffness == 0);  // automatic
  CHECK(warnings.empty());
  // The floor raised into the block: refused by key, naming the deepest vertex.
  spec.colliders[0].contact.collider.motion.initial.translation.z() = 0.02;
  try {
    resolve_contact_options(spec, "s.json", mesh.rest_positions, masses, warnings);
    FAIL("an overlapping barrier was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Contains("s.json: colliders[0]: 9 vertices start at or inside"));
    CHECK_THAT(e.what(), Contains("0.02 m deep"));
  }
  // A penalty may start overlapping, with a warning; its k holds ten vertex weights at delta.
  spec.colliders[0].contact.model = ContactModel::kPenalty;
  options = resolve_contact_options(spec, "s.json", mesh.rest_positions, masses, warnings);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Contains("the penalty pushes them out"));
  const ColliderContact& penalty = options.colliders[0];
  CHECK(3 * penalty.stiffness * penalty.delta * penalty.delta == Approx(10 * masses.mean() * 9.81));
}

TEST_CASE("Each collider's drawn surface lies on its level set", "[precompute][contact]") {
  const std::vector<std::pair<ColliderShape, Eigen::Vector4d>> shapes = {
      {ColliderShape::kSphere, {0.5, 0, 0, 0}},
      {ColliderShape::kCapsule, {0.3, 0.6, 0, 0}},
      {ColliderShape::kRoundedBox, {0.5, 0.4, 0.3, 0.1}},
      {ColliderShape::kCylinder, {0.5, 0.4, 0.1, 0}},
      {ColliderShape::kBowl, {1.0, 0.1, 0, 0}},
      {ColliderShape::kHalfSpace, Eigen::Vector4d::Zero()}};
  for (const auto& [shape, size] : shapes) {
    LevelSetCollider collider;
    collider.shape = shape;
    collider.size = size;
    const ColliderSurface surface = collider_surface(collider, 3.0);
    REQUIRE(surface.triangles.rows() > 0);
    CHECK(surface.triangles.maxCoeff() < surface.positions.rows());
    double worst = 0;
    for (Eigen::Index p = 0; p < surface.positions.rows(); ++p)
      worst = std::max(
          worst,
          std::abs(
              sample_local_level_set(shape, size, surface.positions.row(p).transpose()).value));
    INFO("shape " << static_cast<int>(shape));
    CHECK(worst < 1e-9);
  }
}

TEST_CASE("docs/SPEC.md holds the collider keys' table as the list makes it",
          "[precompute][contact]") {
  // (Regenerate with `ramus settings --collider-table`.)
  CHECK(test::generated_part(test::read_doc("SPEC.md"), "collider keys") ==
        collider_keys_markdown_table());
}

TEST_CASE("A mesh collider's grid is built from its file, and bad files and grids are named",
          "[precompute][contact]") {
  test::TempDir dir("mesh_collider_spec");
  // A closed box surface, and the same with a triangle missing.
  const std::string box =
      "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n";
  const std::string faces =
      "f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 2 3 7\nf 2 7 6\nf 3 4 8\nf 3 8 7\n"
      "f 4 1 5\n";
  std::ofstream((dir.path() / "box.obj").string()) << box << faces << "f 4 5 8\n";
  std::ofstream((dir.path() / "open.obj").string()) << box << faces;
  const TetMesh mesh = test::box_mesh(2, 2, 2, 0.1, 0.1, 0.1);
  const Eigen::MatrixX3d above = mesh.rest_positions.rowwise() + Eigen::RowVector3d(0, 0, 1.1);
  const Eigen::VectorXd masses = Eigen::VectorXd::Constant(mesh.num_vertices(), 1.0 / 27);
  std::vector<std::string> warnings;
  const auto resolve = [&](const std::string& collider) {
    return resolve_contact_options(spec_with(dir, "[" + collider + "]").contact, "s.json", above,
                                   masses, warnings);
  };
  const ContactOptions options =
      resolve(R"({"shape": "mesh", "file": "box.obj", "voxel_size": 0.05})");
  const ColliderContact& c = options.colliders[0];
  REQUIRE(c.collider.grid);
  CHECK(c.collider.grid->spacing() == Approx(0.05));
  CHECK(c.delta == Approx(0.05));  // the larger of 1e-3 of the diagonal and the voxel
  CHECK(sample_level_set(c.collider, Eigen::Vector3d(0.5, 0.5, 1.2), 0).value == Approx(0.2));
  CHECK(sample_level_set(c.collider, Eigen::Vector3d(0.5, 0.5, 0.9), 0).value == Approx(-0.1));
  CHECK(collider_surface(c.collider, 1).triangles.rows() == 12);
  // Errors by key: an open surface, a grid too coarse for delta, a missing file, no file.
  const auto error_resolving = [&](const std::string& collider) -> std::string {
    try {
      resolve(collider);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK_THAT(error_resolving(R"({"shape": "mesh", "file": "open.obj"})"),
             Contains("colliders[0]: ") && Contains("open.obj"));
  CHECK_THAT(error_resolving(R"({"shape": "mesh", "file": "box.obj", "voxel_size": 0.1,
                                 "delta": 0.01})"),
             Contains("colliders[0].voxel_size: the grid (voxel 0.1 m) is too coarse for delta"));
  CHECK_THAT(error_resolving(R"({"shape": "mesh", "file": "none.obj"})"),
             Contains("colliders[0].file: ") && Contains("none.obj"));
  CHECK_THAT(error_of(dir, R"([{"shape": "mesh"}])"),
             Contains("colliders[0]: missing required key \"file\""));
  CHECK_THAT(error_of(dir, R"([{"shape": "mesh", "file": "box.obj", "voxel_size": -1}])"),
             Contains("colliders[0].voxel_size: must be positive"));
  CHECK_THAT(error_of(dir, R"([{"shape": "sphere", "radius": 1, "file": "box.obj"}])"),
             Contains("colliders[0].file: does not apply to a sphere"));
}

TEST_CASE("Self-collision keys are parsed, defaulted and checked by key", "[precompute][contact]") {
  test::TempDir dir("self_collision_spec");
  const ModelSpec spec =
      spec_with(dir, "[]", R"(, "contact": {"self_collision": true, "self_friction": 0.3},
                              "copies": [{"translation": [1, 0, 0]},
                                         {"rotation": {"axis": [0, 0, 1], "degrees": 90}}])");
  CHECK(spec.contact.self_collision);
  REQUIRE(spec.copies.size() == 2);
  CHECK(spec.copies[0].translation().isApprox(Eigen::Vector3d(1, 0, 0)));
  CHECK(spec.copies[1].linear().col(0).isApprox(Eigen::Vector3d(0, 1, 0)));
  const TetMesh mesh = test::box_mesh(2, 2, 2, 0.1, 0.1, 0.1);
  const Eigen::VectorXd masses = Eigen::VectorXd::Constant(mesh.num_vertices(), 1.0 / 27);
  std::vector<std::string> warnings;
  const ContactOptions options =
      resolve_contact_options(spec.contact, "s.json", mesh.rest_positions, masses, warnings);
  CHECK(options.self_collision.enabled);
  CHECK(options.self_collision.friction == Approx(0.3));
  const double depth = 1e-3 * std::sqrt(3) * 0.1;
  CHECK(3 * options.self_collision.stiffness * depth * depth == Approx(10 * masses.mean() * 9.81));
  CHECK_THAT(error_of(dir, "[]", R"(, "contact": {"self_friction": 0.3})"),
             Contains("contact.self_friction: needs \"self_collision\": true"));
  CHECK_THAT(error_of(dir, "[]", R"(, "contact": {"self_collision": 1})"),
             Contains("contact.self_collision: expected true or false"));
  CHECK_THAT(error_of(dir, "[]", R"(, "contact": {"self_collision": true, "self_depth": 0.1,
                                                   "self_stiffness": 5})"),
             Contains("give \"self_depth\" or \"self_stiffness\", not both"));
  CHECK_THAT(error_of(dir, "[]", R"(, "copies": [])"), Contains("copies: expected a non-empty"));
  CHECK_THAT(error_of(dir, "[]", R"(, "copies": [{"scale": 2}])"),
             Contains("copies[0]: unknown key \"scale\""));
}
