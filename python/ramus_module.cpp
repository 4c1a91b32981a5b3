// The `ramus` Python module (pybind11): load or precompute a model, create objects, step them,
// set forces, colliders, settings and a moving anchor, and read q, frames and render positions
// as numpy views of the object's own memory (no copies). docs/PYTHON.md walks through it.
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "ramus/error.h"
#include "ramus/runtime/data/settings_table.h"
#include "ramus/runtime/dynamics/step_objects.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/model_geometry.h"
#include "ramus/runtime/simulator.h"
#include "ramus/runtime/version.h"
#ifdef RAMUS_PYTHON_PRECOMPUTE
#include "ramus/precompute/model/model_file_writer.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/pipeline/precompute_model.h"
#endif

namespace py = pybind11;

namespace {

using ramus::Model;
using ramus::Simulator;
// (pybind11 holds a non-const shared_ptr; the module never changes a Model.)
using ModelPtr = std::shared_ptr<Model>;
ModelPtr held(std::shared_ptr<const Model> model) {
  return std::const_pointer_cast<Model>(model);
}

// A numpy view of `rows` by `cols` doubles at `data` (column-major, as Eigen keeps them) that
// keeps `owner` alive; read-only.
py::array_t<double> view(const double* data, py::ssize_t rows, py::ssize_t cols, py::handle owner) {
  py::array_t<double> a(
      {rows, cols},
      {static_cast<py::ssize_t>(sizeof(double)), static_cast<py::ssize_t>(sizeof(double)) * rows},
      data, owner);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

// A read-only 1-D view of one of the State's vectors (q, q̇) that keeps `self` alive.
py::object state_vector(py::object self, Eigen::VectorXd ramus::State::*member);

// A step's status as a Python error (RuntimeError naming it); nothing for ok.
void check_step(ramus::StepStatus status, const char* what) {
  if (status != ramus::StepStatus::kOk)
    throw std::runtime_error(std::string(what) + ": " + ramus::to_string(status) +
                             " (the state is as before the step)");
}

// One object: the Simulator and the render buffer its render_positions view shows.
struct Object {
  explicit Object(ModelPtr model) : simulator(std::move(model)) {
    render.resize(3 * static_cast<std::size_t>(simulator.model().num_global_vertices));
    drawn.resize(6 * static_cast<std::size_t>(simulator.model().render.num_vertices));
    check_step(simulator.initialize(), "create");
  }
  Simulator simulator;
  std::vector<float> render;  // 3 #V: x, y, z per vertex
  std::vector<float> drawn;   // the render mesh: 3 or 6 floats a vertex
};

py::object state_vector(py::object self, Eigen::VectorXd ramus::State::*member) {
  const Eigen::VectorXd& v = self.cast<const Object&>().simulator.state().*member;
  return view(v.data(), v.size(), 1, self).attr("reshape")(-1);
}

// A setting's value from Python: a number or three.
ramus::SettingValue setting_from(const ramus::SettingInfo& info, const py::object& value) {
  ramus::SettingValue v;
  if (info.type == ramus::SettingType::kVector3) {
    const auto xyz = value.cast<std::vector<double>>();
    if (xyz.size() != 3) throw py::value_error(std::string(info.name) + ": expected 3 numbers");
    for (int k = 0; k < 3; ++k) v.v[static_cast<std::size_t>(k)] = xyz[static_cast<std::size_t>(k)];
  } else if (info.type == ramus::SettingType::kIntegrator && py::isinstance<py::str>(value)) {
    const auto integrator = ramus::integrator_from_string(value.cast<std::string>());
    if (!integrator)
      throw py::value_error(std::string("integrator: expected one of ") +
                            ramus::integrator_names());
    v.v[0] = static_cast<double>(*integrator);
  } else {
    v.v[0] = value.cast<double>();
  }
  if (const std::string problem = ramus::setting_value_problem(info, v); !problem.empty())
    throw py::value_error(std::string(info.name) + ": " + problem);
  return v;
}

// The object setting of this name (not a run's scenario, cloth or full-space one).
const ramus::SettingInfo& object_setting(const std::string& name) {
  const ramus::SettingInfo* info = ramus::find_setting(name);
  if (!info ||
      !(info->scope == ramus::SettingScope::kObject || info->scope == ramus::SettingScope::kWind ||
        info->scope == ramus::SettingScope::kDomain))
    throw py::key_error("no such setting: " + name + " (docs/SPEC.md, \"Settings\")");
  return *info;
}

// A collider from keyword values (world = the object's model axes).
ramus::Collider make_collider(const std::string& shape, const std::vector<double>& size,
                              const Eigen::Vector3d& position, const Eigen::Matrix3d& rotation,
                              const Eigen::Vector3d& velocity,
                              const Eigen::Vector3d& angular_velocity, double friction) {
  static const std::vector<std::string> shapes = {"half_space", "sphere",   "capsule",
                                                  "box",        "cylinder", "bowl"};
  ramus::Collider c;
  const auto found = std::find(shapes.begin(), shapes.end(), shape);
  if (found == shapes.end())
    throw py::value_error("collider shape '" + shape +
                          "': expected half_space, sphere, capsule, box, cylinder or bowl");
  c.shape = static_cast<ramus::ColliderShape>(found - shapes.begin());
  if (size.size() > 4) throw py::value_error("collider size: at most 4 numbers");
  for (std::size_t k = 0; k < size.size(); ++k) c.size(static_cast<Eigen::Index>(k)) = size[k];
  c.pose.translation = position;
  c.pose.rotation = rotation;
  c.velocity = velocity;
  c.angular_velocity = angular_velocity;
  c.friction = friction;
  if (const char* problem = ramus::collider_problem(c))
    throw py::value_error(std::string("collider: ") + problem);
  return c;
}

#ifdef RAMUS_PYTHON_PRECOMPUTE
// precompute from a spec given as a dict: its JSON text, paths relative to `base_dir`.
ModelPtr precompute_spec(const py::dict& spec, const std::string& base_dir,
                         const std::string& output) {
  const std::string text = py::module_::import("json").attr("dumps")(spec).cast<std::string>();
  const ramus::ModelSpec parsed =
      ramus::parse_model_spec(text, base_dir + "/<spec given as a dict>.json");
  ramus::ReducedModel model;
  {
    py::gil_scoped_release unlocked;  // (minutes on all cores: other Python threads run)
    model = ramus::precompute_model(parsed, {}, {});
    if (!output.empty()) ramus::write_model_file(model, output);
  }
  return held(ramus::compile_model(std::move(model)));
}
#endif

}  // namespace

PYBIND11_MODULE(ramus, m) {
  m.doc() = "Ramus: real-time reduced, substructured deformable objects (docs/PYTHON.md)";
  m.attr("__version__") = ramus::version_string();
  // Ramus's errors as Python's: a bad file or spec, a bad option.
  py::register_exception<ramus::InputError>(m, "InputError", PyExc_ValueError);
  py::register_exception<ramus::OptionError>(m, "OptionError", PyExc_ValueError);

  // The model: loaded, from bytes, or precomputed; its tree and meshes.
  py::class_<Model, ModelPtr>(m, "Model", "An immutable reduced model; objects share it.")
      .def_static(
          "load", [](const std::string& path) { return held(ramus::load_model(path)); },
          py::arg("path"), "Loads a model file (its seal and checksum checked).")
      .def_static(
          "from_bytes",
          [](const py::bytes& data, const std::string& name) {
            const std::string bytes = data;
            return held(
                ramus::compile_model(ramus::read_model_memory(bytes.data(), bytes.size(), name)));
          },
          py::arg("data"), py::arg("name") = "<model in memory>",
          "Loads a model file's bytes (a game archive's entry).")
      .def_property_readonly("num_domains", &Model::num_domains)
      .def_property_readonly("num_vertices",
                             [](const Model& model) { return model.num_global_vertices; })
      .def_property_readonly("num_coordinates", [](const Model& model) { return model.num_dofs; })
      .def_property_readonly("free_root", [](const Model& model) { return model.free_root; })
      .def_property_readonly("domain_names",
                             [](const Model& model) {
                               std::vector<std::string> names;
                               for (const ramus::Domain& d : model.domains) names.push_back(d.name);
                               return names;
                             })
      .def_property_readonly("domain_parents",
                             [](const Model& model) {
                               std::vector<int> parents;
                               for (const ramus::Domain& d : model.domains)
                                 parents.push_back(d.parent);
                               return parents;
                             })
      .def_property_readonly(
          "boundary_triangles",
          [](const Model& model) { return ramus::global_boundary_triangles(model); },
          "#F by 3 vertex indices, outward (a copy)")
      .def_property_readonly(
          "render_triangles",
          [](const Model& model) {
            ramus::RenderTriangles triangles(model.render.num_triangles, 3);
            ramus::render_triangles(model, triangles.data());
            return triangles;
          },
          "The render mesh's triangles, #F by 3 indices into render_vertices (a copy)")
      .def_property_readonly(
          "rest_positions", [](const Model& model) { return ramus::global_rest_positions(model); },
          "#V by 3 rest positions (m; a copy)")
      .def(
          "vertex_copy",
          [](const Model& model, int vertex) {
            if (vertex < 0 || vertex >= model.num_global_vertices)
              throw py::index_error("vertex " + std::to_string(vertex) + " does not exist");
            return ramus::vertex_copy(model, vertex);
          },
          py::arg("vertex"), "(domain, domain vertex) holding a vertex of the whole mesh");

  // One object.
  py::class_<Object>(m, "Object", "One simulated object of a model (its State and Workspace).")
      .def(py::init<ModelPtr>(), py::arg("model"))
      .def_property_readonly("model",
                             [](const Object& o) { return held(o.simulator.shared_model()); })
      .def_property_readonly("time", [](const Object& o) { return o.simulator.time(); })
      .def(
          "step",
          [](Object& o, int steps) {
            py::gil_scoped_release unlocked;
            for (int k = 0; k < steps; ++k) check_step(o.simulator.step(), "step");
          },
          py::arg("steps") = 1, "Steps (RuntimeError on failure, the state as before that step).")
      .def(
          "reset", [](Object& o) { check_step(o.simulator.reset(), "reset"); },
          "Back at rest (time 0, no forces; settings and colliders kept).")
      .def(
          "save_state",
          [](const Object& o, unsigned parts) {
            std::string blob(o.simulator.state_size(parts), '\0');
            if (blob.empty() || o.simulator.save_state(parts, blob.data(), blob.size()) == 0)
              throw py::value_error("save_state: unknown parts " + std::to_string(parts));
            return py::bytes(blob);
          },
          py::arg("parts") = static_cast<unsigned>(ramus::kStateAll),
          "A snapshot (bytes; docs/STATES.md).")
      .def(
          "restore_state",
          [](Object& o, const py::bytes& data) {
            const std::string blob = data;
            const ramus::SnapshotStatus s = o.simulator.restore_state(blob.data(), blob.size());
            if (s != ramus::SnapshotStatus::kOk)
              throw py::value_error(std::string("restore_state: ") + ramus::to_string(s));
          },
          py::arg("snapshot"))
      // Settings by name, from the one list.
      .def(
          "get",
          [](const Object& o, const std::string& name, int domain) -> py::object {
            const ramus::SettingInfo& info = object_setting(name);
            if (domain < 0 || domain >= o.simulator.num_domains())
              throw py::index_error("domain " + std::to_string(domain) + " does not exist");
            const ramus::SettingValue v =
                ramus::setting_value(o.simulator.settings(), info, domain);
            if (info.type == ramus::SettingType::kVector3)
              return py::cast(std::vector<double>(v.v.begin(), v.v.end()));
            if (info.type == ramus::SettingType::kIntegrator)
              return py::str(
                  ramus::to_string(static_cast<ramus::Integrator>(static_cast<int>(v.v[0]))));
            return py::float_(v.v[0]);
          },
          py::arg("name"), py::arg("domain") = 0, "A setting (docs/SPEC.md \"Settings\").")
      .def(
          "set",
          [](Object& o, const std::string& name, const py::object& value, int domain) {
            const ramus::SettingInfo& info = object_setting(name);
            if (domain < -1 || domain >= o.simulator.num_domains())
              throw py::index_error("domain " + std::to_string(domain) + " does not exist");
            const ramus::SettingValue v = setting_from(info, value);
            o.simulator.edit_settings(
                [&](ramus::RuntimeSettings& s) { ramus::set_setting(s, info, v, domain); });
          },
          py::arg("name"), py::arg("value"), py::arg("domain") = -1,
          "Sets a setting (a per-domain one: in `domain`, or every domain for -1).")
      .def("set_threads", [](Object& o, int threads) { o.simulator.set_threads(threads); })
      // Forces, colliders and the anchor, in the object's model axes.
      .def(
          "add_force",
          [](Object& o, int domain, int vertex, const Eigen::Vector3d& force) {
            o.simulator.add_vertex_force(domain, vertex, force);
          },
          py::arg("domain"), py::arg("vertex"), py::arg("force"),
          "A constant force (N) at a vertex of a domain's mesh, until clear_forces().")
      .def("clear_forces", [](Object& o) { o.simulator.clear_vertex_forces(); })
      .def(
          "add_collider",
          [](Object& o, const std::string& shape, const std::vector<double>& size,
             const Eigen::Vector3d& position, const Eigen::Matrix3d& rotation,
             const Eigen::Vector3d& velocity, const Eigen::Vector3d& angular_velocity,
             double friction) {
            const ramus::ColliderResult added = o.simulator.add_collider(make_collider(
                shape, size, position, rotation, velocity, angular_velocity, friction));
            if (added.status != ramus::ColliderStatus::kOk)
              throw py::value_error(std::string("add_collider: ") + added.message);
            return added.id;
          },
          py::arg("shape"), py::arg("size") = std::vector<double>{},
          py::arg("position") = Eigen::Vector3d::Zero(),
          py::arg("rotation") = Eigen::Matrix3d::Identity(),
          py::arg("velocity") = Eigen::Vector3d::Zero(),
          py::arg("angular_velocity") = Eigen::Vector3d::Zero(), py::arg("friction") = 0.0,
          "A kinematic collider (docs/CONTACT.md); its id.")
      .def(
          "move_collider",
          [](Object& o, int id, const Eigen::Vector3d& position, const Eigen::Matrix3d& rotation,
             double seconds) {
            ramus::RigidPose target;
            target.translation = position;
            target.rotation = rotation;
            if (o.simulator.colliders().move_kinematic(id, target, seconds) !=
                ramus::ColliderStatus::kOk)
              throw py::value_error("move_collider: unknown id or bad pose/seconds");
          },
          py::arg("id"), py::arg("position"), py::arg("rotation") = Eigen::Matrix3d::Identity(),
          py::arg("seconds"))
      .def("remove_collider",
           [](Object& o, int id) {
             if (o.simulator.colliders().remove(id) != ramus::ColliderStatus::kOk)
               throw py::value_error("remove_collider: unknown id " + std::to_string(id));
           })
      .def(
          "move_anchor",
          [](Object& o, const Eigen::Vector3d& position, const Eigen::Matrix3d& rotation,
             double seconds) {
            ramus::RigidPose target;
            target.translation = position;
            target.rotation = rotation;
            o.simulator.move_anchor(target, seconds);
          },
          py::arg("position"), py::arg("rotation") = Eigen::Matrix3d::Identity(),
          py::arg("seconds"),
          "Carries an anchored root's frame to this pose by the end of the next step.")
      // Views of the object's memory (read-only, valid while the object lives; a step updates
      // them in place).
      .def_property_readonly(
          "q", [](py::object self) { return state_vector(self, &ramus::State::q); },
          "Every domain's reduced coordinates (a view).")
      .def_property_readonly(
          "qdot", [](py::object self) { return state_vector(self, &ramus::State::qdot); },
          "Their velocities (a view).")
      .def_property_readonly(
          "frame_origins",
          [](py::object self) {
            const ramus::State& s = self.cast<const Object&>().simulator.state();
            return py::object(
                view(s.frame_origin.data(), 3, s.frame_origin.cols(), self).attr("T"));
          },
          "#domains by 3: each domain frame's origin (a view).")
      .def_property_readonly(
          "frame_rotations",
          [](py::object self) {
            const ramus::State& s = self.cast<const Object&>().simulator.state();
            // 3 by 3N column-major: domain i's rotation is columns 3i..3i+2.
            return py::object(view(s.frame_rotation.data(), 3, s.frame_rotation.cols(), self)
                                  .attr("T")
                                  .attr("reshape")(s.frame_origin.cols(), 3, 3)
                                  .attr("transpose")(0, 2, 1));
          },
          "#domains by 3 by 3: each domain frame's axes (a view).")
      .def(
          "render_positions",
          [](py::object self) {
            Object& o = self.cast<Object&>();
            o.simulator.render_positions(o.render.data());
            py::array_t<float> a({static_cast<py::ssize_t>(o.render.size() / 3), py::ssize_t{3}},
                                 o.render.data(), self);
            return a;
          },
          "Every vertex's position now, #V by 3 float32: a view of the object's buffer, "
          "refilled by each call.")
      .def(
          "render_vertices",
          [](py::object self, bool normals) {
            Object& o = self.cast<Object&>();
            o.simulator.render_vertices(o.drawn.data(), normals);
            const py::ssize_t stride = ramus::render_vertex_stride(normals);
            py::array_t<float> a(
                {static_cast<py::ssize_t>(o.simulator.model().render.num_vertices), stride},
                o.drawn.data(), self);
            return a;
          },
          py::arg("normals") = false,
          "The render mesh now (Model.render_triangles): #S by 3 float32 positions, or by 6 with "
          "unit normals; a view of the object's buffer, refilled by each call.");

  m.def(
      "step_objects",
      [](const std::vector<Object*>& objects, int threads) {
        std::vector<ramus::ObjectStep> entries;
        for (Object* o : objects) entries.push_back(o->simulator.batch_entry());
        int failed = 0;
        {
          py::gil_scoped_release unlocked;
          failed = ramus::step_objects(entries.data(), entries.size(), threads);
        }
        for (std::size_t k = 0; k < entries.size(); ++k)
          if (entries[k].status != ramus::StepStatus::kOk)
            throw std::runtime_error("step_objects: " + std::to_string(failed) +
                                     " failed (first: object " + std::to_string(k) + ", " +
                                     ramus::to_string(entries[k].status) + ")");
      },
      py::arg("objects"), py::arg("threads") = 1,
      "Steps many objects once each, each on one thread (docs/PERFORMANCE.md \"A forest\").");
  m.attr("STATE_TIME") = static_cast<unsigned>(ramus::kStateTime);
  m.attr("STATE_PHYSICS") = static_cast<unsigned>(ramus::kStatePhysics);
  m.attr("STATE_ALL") = static_cast<unsigned>(ramus::kStateAll);
#ifdef RAMUS_PYTHON_PRECOMPUTE
  m.def("precompute", &precompute_spec, py::arg("spec"), py::arg("base_dir") = ".",
        py::arg("output") = "",
        "Precomputes a model from a spec given as a dict (docs/SPEC.md; paths relative to "
        "base_dir), writing it to `output` when given.");
#endif
}
