// The JSON model spec: parsing, clear errors, vertex selectors and point forces.
#include <catch2/catch.hpp>

#include "ramus/error.h"
#include "ramus/precompute/model/model_spec.h"
#include "support/test_meshes.h"

using namespace ramus;
using Catch::Matchers::Contains;

TEST_CASE("A complete spec parses with every field", "[precompute][model]") {
  const ModelSpec spec = parse_model_spec(R"({
    "mesh": "meshes/beam.msh",
    "tetrahedralize": {"max_radius_edge_ratio": 2.0, "max_volume": 1e-6},
    "material": {"youngs_modulus": 2e6, "poisson_ratio": 0.3, "density": 500},
    "materials_by_label": {"2": {"density": 800}},
    "fixed": [{"plane": {"point": [0, 0, 0], "normal": [2, 0, 0]}}, {"label": 3},
              {"box": {"min": [0, 0, 0], "max": [1, 1, 1]}}, {"vertices": [1, 2]}, {"flag": 1}],
    "forces": [{"vertex": 4, "force": [0, 0, -1], "start": 0.1, "end": 0.2},
               {"at": [0.5, 0, 1], "force": [1, 0, 0]}],
    "simulation": {"time_step": 0.005, "steps": 20, "gravity": [0, -9.8, 0],
                   "rayleigh_mass": 0.5, "rayleigh_stiffness": 0.01, "output_every": 2},
    "check": {"frequencies": 5, "static_tolerance": 0.05, "frequency_tolerance": 0.02,
              "choose_lumping": false, "improve_rounds": 2}
  })",
                                          "/data/specs/beam.json");
  CHECK(spec.mesh_path == "/data/specs/meshes/beam.msh");
  CHECK(spec.tetrahedralize.max_radius_edge_ratio == 2.0);
  CHECK(spec.tetrahedralize.max_volume == 1e-6);
  CHECK(spec.material.youngs_modulus == 2e6);
  CHECK(spec.materials_by_label.at(2).density == 800);
  CHECK(spec.materials_by_label.at(2).youngs_modulus == 2e6);  // inherited from "material"
  REQUIRE(spec.fixed.size() == 5);
  CHECK(spec.fixed[0].normal.isApprox(Eigen::Vector3d::UnitX()));
  CHECK(spec.fixed[1].kind == VertexSelector::Kind::kLabel);
  CHECK(spec.fixed[3].vertices == std::vector<int>{1, 2});
  REQUIRE(spec.forces.size() == 2);
  CHECK(spec.forces[0].end == 0.2);
  CHECK(!spec.forces[0].at);
  CHECK(spec.forces[1].at->x() == 0.5);
  CHECK(spec.simulation.scenario.steps == 20);
  CHECK(spec.simulation.settings.gravity.y() == -9.8);
  CHECK(spec.simulation.scenario.output_every == 2);
  CHECK(spec.check.enabled);
  CHECK(spec.check.frequencies == 5);
  CHECK(spec.check.static_tolerance == 0.05);
  CHECK(spec.check.frequency_tolerance == 0.02);
  CHECK_FALSE(spec.check.choose_lumping);
  CHECK(spec.check.improve_rounds == 2);
  CHECK_FALSE(parse_model_spec(R"({"mesh": "m.msh", "check": false})", "/s.json").check.enabled);
}

TEST_CASE("A mass-spring spec reads its cloth block through the settings list",
          "[precompute][model]") {
  const ModelSpec spec = parse_model_spec(R"({
    "mesh": "cloth.obj", "model": "mass_spring",
    "cloth": {"areal_density": 0.15, "stretch_stiffness": 800, "bend_stiffness": 2,
              "spring_damping": 0.01, "strain_limit": 0.15, "max_halvings": 6,
              "cg_tolerance": 1e-4, "cg_iterations": 50},
    "fixed": [{"vertices": [0, 9]}], "simulation": {"time_step": 0.01, "steps": 5}
  })",
                                          "/data/cloth.json");
  CHECK(spec.model == BodyModel::kMassSpring);
  CHECK(spec.cloth.areal_density == 0.15);
  CHECK(spec.cloth.stretch_stiffness == 800);
  CHECK(spec.cloth.bend_stiffness == 2);
  CHECK(spec.cloth.spring_damping == 0.01);
  CHECK(spec.cloth.strain_limit == 0.15);
  CHECK(spec.cloth.max_halvings == 6);
  CHECK(spec.cloth.cg_tolerance == 1e-4);
  CHECK(spec.cloth.cg_iterations == 50);
  CHECK(spec.simulation.settings.time_step == 0.01);
  // Defaults: the list's.
  const ModelSpec plain =
      parse_model_spec(R"({"mesh": "cloth.obj", "model": "mass_spring"})", "/data/c.json");
  CHECK(plain.cloth.stretch_stiffness == ClothSettings{}.stretch_stiffness);
  CHECK(parse_model_spec(R"({"mesh": "m.msh"})", "/s.json").model == BodyModel::kTetFem);
}

TEST_CASE("Spec errors name the file, the key and the problem", "[precompute][model]") {
  struct Case {
    const char* json;
    const char* expected;
  };
  const Case cases[] = {
      {R"({"material": {}})", "missing required key \"mesh\""},
      {R"({"mesh": "m.msh", "material": {"poisson_ratio": 0.5}})",
       "material.poisson_ratio: must lie in [0, 0.5)"},
      {R"({"mesh": "m.msh", "material": {"poisson_ratio": -0.1}})", "must lie in [0, 0.5)"},
      {R"({"mesh": "m.msh", "material": {"poisson_ratio": 0.4999999999}})",
       "material.poisson_ratio: 0.4999999999 is incompressible to rounding"},
      // Physical ranges (E or rho of 1e+-300 made the eigen-solvers fail without a name).
      {R"({"mesh": "m.msh", "material": {"youngs_modulus": 1e300}})",
       "material.youngs_modulus: must lie in [0.001, 1e+13] Pa"},
      {R"({"mesh": "m.msh", "material": {"density": 1e-300}})", "material.density: must lie in"},
      {R"({"mesh": "m.msh", "materials_by_label": {"2": {"density": 1e9}}})",
       "materials_by_label.2.density"},
      // Counts bounded before any arithmetic (2^31 - 1 modes overflowed, then crashed or hung).
      {R"({"mesh": "m.msh", "reduction": {"linear_modes": 2147483647}})",
       "reduction.linear_modes: must be between 1 and 300, got 2147483647"},
      {R"({"mesh": "m.msh", "domains": {"per_domain": {"leaf": {"r": 2147483647}}}})",
       "domains.per_domain.leaf.r: must be between 0 and 300"},
      {R"({"mesh": "m.msh", "domains": {"total_r": 2147483647}})", "domains.total_r"},
      // The check against the full FEM.
      {R"({"mesh": "m.msh", "check": "yes"})", "check: expected true, false or an object"},
      {R"({"mesh": "m.msh", "check": {"frequencies": 50}})",
       "check.frequencies: must be between 0 and 20, got 50"},
      {R"({"mesh": "m.msh", "check": {"static_tolerance": -1}})",
       "check.static_tolerance: must be positive"},
      {R"({"mesh": "m.msh", "check": {"modes": 3}})", "check: unknown key \"modes\""},
      {R"({"mesh": "m.msh", "check": {"improve_rounds": -1}})",
       "check.improve_rounds: must be between 0 and 20, got -1"},
      // A mass-spring cloth: its settings through the list, no tet FEM keys beside them.
      {R"({"mesh": "c.obj", "model": "cloth"})", "model: expected \"fem\""},
      {R"({"mesh": "c.obj", "cloth": {"stretch_stiffness": 10}})",
       "cloth: only a \"model\": \"mass_spring\" spec takes a cloth block"},
      {R"({"mesh": "c.obj", "model": "mass_spring", "cloth": {"stretch_stiffness": -1}})",
       "cloth.stretch_stiffness: must be positive, got -1"},
      {R"({"mesh": "c.obj", "model": "mass_spring", "cloth": {"stiffness": 1}})",
       "cloth: unknown key \"stiffness\""},
      {R"({"mesh": "c.obj", "model": "mass_spring", "material": {"density": 1}})",
       "material: a \"model\": \"mass_spring\" cloth takes no \"material\""},
      {R"({"mesh": "m.msh", "simulation": {"steps": 18446744073709551615}})",
       "simulation.steps: integer out of range"},
      {R"({"mesh": "m.msh", "forces": [{"vertex": -1, "force": [0, 0, 1]}]})",
       "forces[0].vertex: must be between 0"},
      // A value shown in a message is cut short (a whole subtree may stand where a number should).
      {R"({"mesh": "m.msh", "material": {"density": [1111111111, 2222222222, 3333333333,
          4444444444, 5555555555, 6666666666]}})",
       "material.density: expected a number, got "
       "[1111111111,2222222222,3333333333,4444444444,5555555555,6..."},
      // Parts cut into domains, and parts that are another part's domain.
      {R"({"parts": {"p": {"mesh": "m.msh", "domains": {"lumping": "interface"}}},
           "instances": [{"part": "p"}]})",
       "parts.p.domains: unknown key \"lumping\""},
      {R"({"parts": {"p": {"mesh": "m.msh",
                           "domains": {"per_domain": {"a": {"integrator": "si"}}}}},
           "instances": [{"part": "p"}]})",
       "parts.p.domains.per_domain.a: unknown key \"integrator\""},
      {R"({"parts": {"p": {"mesh": "m.msh"}, "q": {"part": "p", "domain": "a"}},
           "instances": [{"part": "q"}]})",
       "parts.q.part: part \"p\" is not cut into domains"},
      {R"({"parts": {"q": {"part": "z", "domain": "a"}}, "instances": [{"part": "q"}]})",
       "parts.q.part: no part is named \"z\""},
      {R"({"parts": {"q": {"part": "z", "domain": "a", "mesh": "m.msh"}},
           "instances": [{"part": "q"}]})",
       "parts.q: unknown key \"mesh\""},
      {R"({"parts": {"p": {"mesh": "m.msh"}},
           "instances": [{"name": "a", "part": "p"}, {"part": "p", "parent": "a/b"}]})",
       "\"a\" places a part without domains: name it whole"},
      // Numbers JSON can write but a double cannot hold.
      {R"({"mesh": "m.msh", "simulation": {"time_step": 1e400}})", "invalid JSON"},
      // Duplicate keys (nlohmann keeps the last silently).
      {R"({"mesh": "a.msh", "mesh": "b.msh"})", "key \"mesh\" given twice"},
      {R"({"mesh": "m.msh", "simulation": {"steps": 1, "steps": 2}})",
       "simulation: key \"steps\" given twice"},
      {R"({"mesh": "m.msh", "fixed": [{"plane": {"point": [0, 0, 0], "point": [1, 0, 0]}}]})",
       "fixed.plane: key \"point\" given twice"},
      // Tolerances: negative is an error, not "automatic".
      {R"({"mesh": "m.msh", "fixed": [{"plane": {"point": [0, 0, 0], "normal": [1, 0, 0],
          "tolerance": -1}}]})",
       "fixed[0].plane.tolerance: must not be negative"},
      // TetGen's refinement need not terminate below 1.1.
      {R"({"mesh": "m.msh", "tetrahedralize": {"max_radius_edge_ratio": 1.0}})",
       "tetrahedralize.max_radius_edge_ratio: must be 0 (off) or at least 1.1"},
      {R"({"mesh": "m.msh", "material": {"youngs_modulus": -3}})", "material.youngs_modulus"},
      {R"({"mesh": "m.msh", "fixed": [{"sphere": 1}]})", "unknown selector \"sphere\""},
      {R"({"mesh": "m.msh", "fixed": [{"plane": {"point": [0, 0]}}]})", "fixed[0].plane"},
      {R"({"mesh": "m.msh", "simulation": {"time_step": 0}})", "simulation.time_step"},
      {R"({"mesh": "m.msh", "simulation": {"steps": 2.5}})", "expected an integer"},
      {R"({"mesh": "m.msh", "typo_key": 1})", "unknown key \"typo_key\""},
      {R"({"mesh": "m.msh", "forces": [{"vertex": 1}]})", "forces[0]"},
      {R"({"mesh": "m.msh", "forces": [{"vertex": 1, "at": [0, 0, 0], "force": [0, 0, 1]}]})",
       "exactly one of"},
      {R"({"mesh": "m.msh", "materials_by_label": {"stem": {}}})", "not an integer label"},
      {"{\n  \"mesh\": \"m.msh\",\n  oops\n}", "spec.json:3: invalid JSON"},
  };
  for (const Case& c : cases) {
    INFO(c.json);
    try {
      parse_model_spec(c.json, "spec.json");
      FAIL("no exception");
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Contains("spec.json") && Contains(c.expected));
    }
  }
  CHECK_THROWS_WITH(load_model_spec("/nonexistent/spec.json"), Contains("cannot open"));
}

TEST_CASE("An assembly part may be cut into domains, and a domain placed on its own",
          "[precompute][model]") {
  const ModelSpec spec = parse_model_spec(R"({
    "parts": {"tree": {"mesh": "t.msh", "domains": {"partition": "automatic", "total_r": 30,
                                                    "per_domain": {"crown": {"r": 12}}}},
              "crown": {"part": "tree", "domain": "crown"}},
    "instances": [{"name": "a", "part": "tree"},
                  {"name": "b", "part": "crown", "parent": "a/crown"},
                  {"name": "c", "part": "tree", "parent": "a"}]})",
                                          "dir/spec.json");
  REQUIRE(spec.assembly);
  const AssemblySpec& a = *spec.assembly;
  // (parts in name order: crown, tree)
  REQUIRE(a.parts.size() == 2);
  CHECK(a.parts[0].source_part == 1);
  CHECK(a.parts[0].source_domain == "crown");
  REQUIRE(a.parts[1].domains);
  CHECK(a.parts[1].domains->partition == DomainsSpec::Partition::kAutomatic);
  CHECK(a.parts[1].domains->total_r == 30);
  CHECK(*a.parts[1].domains->per_domain.at("crown").r == 12);
  CHECK(a.instances[1].parent == 0);
  CHECK(a.instances[1].parent_domain == "crown");
  CHECK(a.instances[2].parent == 0);
  CHECK(a.instances[2].parent_domain.empty());
}

TEST_CASE("An assembly spec takes colliders for the model's scenario", "[precompute][model]") {
  const ModelSpec spec = parse_model_spec(R"({
    "parts": {"leaf": {"mesh": "leaf.msh"}},
    "instances": [{"name": "a", "part": "leaf"}],
    "colliders": [{"shape": "capsule", "radius": 0.05, "half_length": 0.4,
                   "position": [-0.6, 0.9, 2], "velocity": [1.25, 0, 0], "friction": 0.3}]})",
                                          "dir/spec.json");
  REQUIRE(spec.assembly);
  REQUIRE(spec.contact.colliders.size() == 1);
  const ColliderSpec& capsule = spec.contact.colliders[0];
  CHECK(capsule.contact.collider.shape == ColliderShape::kCapsule);
  CHECK(capsule.contact.collider.size(1) == 0.4);
  CHECK(capsule.contact.collider.motion.linear_velocity.x() == 1.25);
  CHECK(capsule.contact.friction == 0.3);
  // (simulate-full's contact block is not an assembly's.)
  CHECK_THROWS_WITH(parse_model_spec(R"({"parts": {"leaf": {"mesh": "leaf.msh"}},
                                         "instances": [{"part": "leaf"}], "contact": {}})",
                                     "dir/spec.json"),
                    Contains("contact"));
}

TEST_CASE("Legal but suspicious spec values parse with a warning, huge normals normalize",
          "[precompute][model]") {
  const ModelSpec spec = parse_model_spec(R"({"mesh": "m.msh",
    "material": {"poisson_ratio": 0.4995},
    "fixed": [{"plane": {"point": [0, 0, 0], "normal": [0, 1e200, 0]}}]})",
                                          "spec.json");
  REQUIRE(spec.warnings.size() == 1);
  CHECK_THAT(spec.warnings[0], Contains("material.poisson_ratio: 0.4995 is nearly incompressible"));
  // (|n|² overflows to inf: the plain norm normalized it to zero and every vertex was fixed.)
  CHECK(spec.fixed[0].normal.isApprox(Eigen::Vector3d::UnitY()));
  CHECK(parse_model_spec(R"({"mesh": "m.msh"})", "spec.json").warnings.empty());
}

TEST_CASE("Vertex selectors pick the right vertices and reject empty selections",
          "[precompute][model]") {
  TetMesh mesh = test::box_mesh(2, 1, 1, 2.0, 1.0, 1.0);  // 3 x 2 x 2 lattice
  mesh.labels = Eigen::VectorXi::Zero(mesh.num_tets());
  mesh.labels.head(6).setConstant(7);  // first cell
  mesh.vertex_flags = Eigen::VectorXi::Zero(mesh.num_vertices());
  mesh.vertex_flags(5) = 1;
  VertexSelector plane;
  plane.kind = VertexSelector::Kind::kPlane;
  plane.normal = Eigen::Vector3d::UnitX();
  CHECK(select_vertices(mesh, {plane}).size() == 4);  // x == 0 face
  VertexSelector box;
  box.kind = VertexSelector::Kind::kBox;
  box.box_min = Eigen::Vector3d(1.5, -1, -1);
  box.box_max = Eigen::Vector3d(3, 3, 3);
  CHECK(select_vertices(mesh, {box}).size() == 4);  // x == 2 face
  CHECK(select_vertices(mesh, {plane, box}).size() == 8);
  VertexSelector label;
  label.kind = VertexSelector::Kind::kLabel;
  label.label = 7;
  CHECK(select_vertices(mesh, {label}).size() == 8);  // the first cell's corners
  VertexSelector flag;
  flag.kind = VertexSelector::Kind::kFlag;
  CHECK(select_vertices(mesh, {flag}) == std::vector<int>{5});
  VertexSelector list;
  list.kind = VertexSelector::Kind::kVertexList;
  list.vertices = {3, 1, 3};
  CHECK(select_vertices(mesh, {list}) == std::vector<int>{1, 3});

  list.vertices = {99};
  list.description = "fixed[2]";
  CHECK_THROWS_WITH(select_vertices(mesh, {list}), Contains("fixed[2]") && Contains("vertex 99"));
  box.box_min = Eigen::Vector3d(5, 5, 5);
  box.box_max = Eigen::Vector3d(6, 6, 6);
  box.description = "fixed[0]";
  CHECK_THROWS_WITH(select_vertices(mesh, {box}), Contains("selects no vertex"));
}

TEST_CASE("Point forces act only inside their time window", "[precompute][model]") {
  const std::vector<PointForce> forces = {{2, std::nullopt, {1, 0, 0}, 0.0, 0.5},
                                          {2, std::nullopt, {0, 2, 0}, 0.25, 1.0}};
  CHECK(point_forces_at(forces, 4, 0.1).segment<3>(6) == Eigen::Vector3d(1, 0, 0));
  CHECK(point_forces_at(forces, 4, 0.3).segment<3>(6) == Eigen::Vector3d(1, 2, 0));
  CHECK(point_forces_at(forces, 4, 0.7).segment<3>(6) == Eigen::Vector3d(0, 2, 0));
  CHECK(point_forces_at(forces, 4, 1.0).norm() == 0);
  TetMesh mesh = test::box_mesh(1, 1, 1, 1, 1, 1);
  std::vector<PointForce> bad = {{8, std::nullopt, {0, 0, 0}}};
  CHECK_THROWS_AS(resolve_point_forces(mesh, bad), MeshError);
  std::vector<PointForce> located = {{-1, Eigen::Vector3d(0.9, 1.1, 0.1), {0, 0, 1}}};
  resolve_point_forces(mesh, located);
  REQUIRE(located[0].vertex >= 0);
  CHECK(mesh.rest_positions.row(located[0].vertex) == Eigen::RowVector3d(1, 1, 0));
}

TEST_CASE("domains.lumping takes the names or L1, L2, L3 as the command line does",
          "[precompute][model]") {
  const std::pair<const char*, InterfaceLumping> cases[] = {
      {"L1", InterfaceLumping::kInterface},
      {"L2", InterfaceLumping::kCenterOfMass},
      {"L3", InterfaceLumping::kRigidSubtree},
      {"rigid_subtree", InterfaceLumping::kRigidSubtree}};
  for (const auto& [given, name] : cases) {
    const std::string json =
        std::string(R"({"mesh": "m.msh", "domains": {"lumping": ")") + given + "\"}}";
    const ModelSpec spec = parse_model_spec(json, "spec.json");
    REQUIRE(spec.domains);
    CHECK(spec.simulation.settings.lumping == name);
  }
  CHECK_THROWS_AS(parse_model_spec(R"({"mesh": "m.msh", "domains": {"lumping": "L4"}})", "s.json"),
                  InputError);
}

TEST_CASE(
    "units converts the spec's positions in mesh units to metres and TetGen's volume bound "
    "to mesh units",
    "[precompute][model]") {
  const ModelSpec spec = parse_model_spec(R"({
    "mesh": "m.msh", "units": "mm",
    "tetrahedralize": {"max_volume": 1e-6},
    "fixed": [{"plane": {"point": [100, 0, 0], "normal": [1, 0, 0], "tolerance": 2}},
              {"box": {"min": [0, 0, 0], "max": [10, 20, 30]}}],
    "forces": [{"at": [400, 100, 100], "force": [0, 0, -1]}, {"vertex": 3, "force": [1, 0, 0]}]
  })",
                                          "spec.json");
  CHECK(spec.length_unit == 0.001);
  CHECK(spec.fixed[0].point.isApprox(Eigen::Vector3d(0.1, 0, 0)));
  CHECK(spec.fixed[0].tolerance == Approx(0.002));
  CHECK(spec.fixed[1].box_max.isApprox(Eigen::Vector3d(0.01, 0.02, 0.03)));
  CHECK(spec.forces[0].at->isApprox(Eigen::Vector3d(0.4, 0.1, 0.1)));
  CHECK(spec.forces[0].force == Eigen::Vector3d(0, 0, -1));      // forces stay in newtons
  CHECK(spec.tetrahedralize.max_volume == Approx(1e-6 / 1e-9));  // 1 cm^3 = 1000 mm^3

  const ModelSpec inches = parse_model_spec(R"({"mesh": "m.msh", "units": 0.0254})", "s.json");
  CHECK(inches.length_unit == 0.0254);
  const ModelSpec metres = parse_model_spec(R"({"mesh": "m.msh"})", "s.json");
  CHECK(metres.length_unit == 1.0);
  CHECK_THROWS_WITH(parse_model_spec(R"({"mesh": "m.msh", "units": "furlong"})", "s.json"),
                    Contains("units: unknown unit \"furlong\""));
  CHECK_THROWS_WITH(parse_model_spec(R"({"mesh": "m.msh", "units": -1})", "s.json"),
                    Contains("units: metres per mesh unit must be in [1e-9, 1e9]"));

  const ModelSpec assembly = parse_model_spec(R"({
    "parts": {"trunk": {"mesh": "t.msh", "units": "cm",
                        "base": [{"box": {"min": [-1, -1, -1], "max": [1, 1, 0]}}]}},
    "instances": [{"part": "trunk"}]
  })",
                                              "tree.json");
  REQUIRE(assembly.assembly);
  CHECK(assembly.assembly->parts[0].length_unit == 0.01);
  CHECK(assembly.assembly->parts[0].base[0].box_min.isApprox(Eigen::Vector3d(-0.01, -0.01, -0.01)));
}
