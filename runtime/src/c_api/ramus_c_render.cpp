// The C interface's render mesh (ramus/ramus.h, "Rendering"): counts and triangles, world
// vertices with normals for a CPU path, and for a vertex shader each piece's tables (uploaded
// once), each domain's transform and q as floats (per frame). Per-frame calls allocate nothing.
#include "c_object.h"
#include "ramus/ramus.h"
#include "ramus/runtime/dynamics/render_vertices.h"

using ramus::c_api::check_size;
using ramus::c_api::fail;
using ramus::c_api::succeed;

namespace {

// The object's placement as render_vertices folds it in.
ramus::RenderPlacement placement_of(const ramus_object& o) {
  return {o.rotation, o.translation};
}

template <typename Scalar>
ramus_status surface_positions(ramus_object* o, Scalar* out, size_t count) {
  if (!o || !out) return fail(RAMUS_INVALID_ARGUMENT, "surface positions: NULL object or buffer");
  const int S = o->simulator.model().render.num_vertices;
  if (S == 0) return fail(RAMUS_INVALID_ARGUMENT, "surface positions: the model has no surface");
  if (ramus_status s = check_size(count, 3L * S, "surface positions"); s != RAMUS_OK) return s;
  if constexpr (std::is_same_v<Scalar, float>)
    o->simulator.render_vertices(out, false, placement_of(*o));
  else
    o->simulator.render_vertices(out, placement_of(*o));
  return succeed();
}

}  // namespace

extern "C" {

int ramus_model_num_surface_vertices(const ramus_model* model) {
  return model ? model->model->render.num_vertices : 0;
}

int ramus_model_num_surface_triangles(const ramus_model* model) {
  return model ? model->model->render.num_triangles : 0;
}

ramus_status ramus_model_surface_triangles(const ramus_model* model, int* out, size_t count) {
  if (!model || !out) return fail(RAMUS_INVALID_ARGUMENT, "surface triangles: NULL argument");
  if (ramus_status s =
          check_size(count, 3L * model->model->render.num_triangles, "surface triangles");
      s != RAMUS_OK)
    return s;
  ramus::render_triangles(*model->model, out);
  return succeed();
}

ramus_status ramus_object_surface_positions(ramus_object* object, double* out, size_t count) {
  return surface_positions(object, out, count);
}

ramus_status ramus_object_surface_positions_f(ramus_object* object, float* out, size_t count) {
  return surface_positions(object, out, count);
}

ramus_status ramus_object_render_vertices(ramus_object* object, float* out, size_t count,
                                          int normals) {
  if (!object || !out) return fail(RAMUS_INVALID_ARGUMENT, "render vertices: NULL argument");
  const long stride = ramus::render_vertex_stride(normals != 0);
  if (ramus_status s = check_size(count, stride * object->simulator.model().render.num_vertices,
                                  "render vertices");
      s != RAMUS_OK)
    return s;
  object->simulator.render_vertices(out, normals != 0, placement_of(*object));
  return succeed();
}

int ramus_model_num_render_pieces(const ramus_model* model) {
  return model ? static_cast<int>(model->model->render.pieces.size()) : 0;
}

ramus_status ramus_model_render_piece(const ramus_model* model, int piece,
                                      ramus_render_piece* out) {
  if (!model || !out) return fail(RAMUS_INVALID_ARGUMENT, "render piece: NULL argument");
  const ramus::Model& m = *model->model;
  if (piece < 0 || piece >= static_cast<int>(m.render.pieces.size()))
    return fail(RAMUS_INVALID_ARGUMENT, "render piece " + std::to_string(piece) +
                                            " is out of range [0, " +
                                            std::to_string(m.render.pieces.size()) + ")");
  const ramus::RenderPiece& p = m.render.pieces[static_cast<std::size_t>(piece)];
  out->part = p.part;
  out->num_vertices = p.size();
  out->num_triangles = static_cast<int>(p.triangles.rows());
  out->num_coordinates = m.parts[static_cast<std::size_t>(p.part)].r;
  out->rest = p.rest.data();
  out->rest_normals = p.rest_normals.data();
  out->position_basis = p.position_basis.data();
  out->normal_basis = p.normal_basis.data();
  out->triangles = p.triangles.data();
  out->num_domains = static_cast<int>(p.domains.size());
  out->domains = p.domains.data();
  out->first_vertex = p.first_vertex;
  out->first_triangle = p.first_triangle;
  out->first_coordinate = m.domains[static_cast<std::size_t>(p.domains.front())].dof_offset;
  return succeed();
}

ramus_status ramus_object_render_transforms(ramus_object* object, float* out, size_t count) {
  if (!object || !out) return fail(RAMUS_INVALID_ARGUMENT, "render transforms: NULL argument");
  const ramus::Model& m = object->simulator.model();
  if (ramus_status s =
          check_size(count, ramus::kRenderTransformFloats * m.num_domains(), "render transforms");
      s != RAMUS_OK)
    return s;
  ramus::render_transforms(m, object->simulator.state(), out, placement_of(*object));
  return succeed();
}

int ramus_model_num_coordinates(const ramus_model* model) {
  return model ? model->model->num_dofs : 0;
}

ramus_status ramus_object_coordinates_f(const ramus_object* object, float* out, size_t count) {
  if (!object || !out) return fail(RAMUS_INVALID_ARGUMENT, "coordinates: NULL argument");
  const Eigen::VectorXd& q = object->simulator.state().q;
  if (ramus_status s = check_size(count, q.size(), "coordinates"); s != RAMUS_OK) return s;
  Eigen::Map<Eigen::VectorXf>(out, q.size()) = q.cast<float>();
  return succeed();
}

}  // extern "C"
