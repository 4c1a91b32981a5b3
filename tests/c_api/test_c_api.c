/* The C interface (ramus/ramus.h) from C99: every function, its error paths, and that what it
 * returns agrees with itself (placement, float and double, picking). Usage:
 *   test_c_api <model.h5> <not-a-model.h5> [<model with an embedded surface>]
 * Exit 0 when every check holds; each failed check is printed with its line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_checks.h"
#include "ramus/ramus.h"

static double distance2(const double* x, int a, int b) {
  double d = 0;
  int c;
  for (c = 0; c < 3; ++c) d += (x[3 * a + c] - x[3 * b + c]) * (x[3 * a + c] - x[3 * b + c]);
  return d;
}

/* Bad arguments to every model and object function. */
static void check_errors(const ramus_model* model, ramus_object* object) {
  int triangles[3];
  double v3[3] = {0, 0, 0}, bad3[3] = {0, NAN, 0}, out[3];
  float outf[3];
  const double scaled[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2};
  const double mirror[9] = {-1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double far3[3] = {1e39, 0, 0};
  const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  CHECK(ramus_model_num_vertices(NULL) == 0 && ramus_model_num_domains(NULL) == 0);
  CHECK(ramus_model_num_boundary_triangles(NULL) == 0);
  CHECK(ramus_model_num_surface_vertices(NULL) == 0);
  CHECK(ramus_model_num_surface_triangles(NULL) == 0);
  CHECK(ramus_model_boundary_triangles(model, triangles, 3) == RAMUS_INVALID_ARGUMENT);
  CHECK(strstr(ramus_last_error(), "boundary triangles: the buffer holds 3 values") != NULL);
  CHECK(ramus_model_boundary_triangles(NULL, triangles, 3) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_model_surface_triangles(model, NULL, 0) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_placement(object, scaled, v3) == RAMUS_INVALID_ARGUMENT);
  CHECK(strstr(ramus_last_error(), "not a rotation") != NULL);
  CHECK(ramus_object_set_placement(object, mirror, v3) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_placement(object, identity, bad3) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_placement(object, identity, far3) == RAMUS_INVALID_ARGUMENT);
  CHECK(strstr(ramus_last_error(), "translation beyond 1e9 m") != NULL);
  CHECK(ramus_object_set_placement(NULL, identity, v3) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_time_step(object, 0) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_time_step(object, NAN) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_time_step(NULL, 0.01) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_integrator(object, (ramus_integrator)0) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_integrator(object, (ramus_integrator)14) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_integrator(NULL, RAMUS_SIERE) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_damping(object, -1, 0) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_damping(object, 0, NAN) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_damping(NULL, 0, 0) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_gravity(object, bad3) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_gravity(object, NULL) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_wind(object, v3, 100, 0, 1) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_wind(object, v3, 0, 0, -1) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_wind(object, bad3, 0, 0, 1) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_wind(NULL, v3, 0, 0, 1) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_apply_force(object, -1, v3) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_apply_force(object, ramus_model_num_vertices(model), v3) ==
        RAMUS_INVALID_ARGUMENT);
  CHECK(strstr(ramus_last_error(), "does not exist") != NULL);
  CHECK(ramus_object_apply_force(object, 0, bad3) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_apply_force(NULL, 0, v3) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_clear_forces(NULL) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_pick_vertex(object, v3, v3, 1, NULL) == -2); /* zero direction: an error */
  CHECK(ramus_object_pick_vertex(object, bad3, v3, 1, NULL) == -2);
  CHECK(ramus_object_pick_vertex(NULL, v3, v3, 1, NULL) == -2);
  CHECK(ramus_object_step(NULL) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_time(NULL) == 0);
  CHECK(ramus_object_vertex_positions(object, out, 3) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_vertex_positions_f(object, outf, 3) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_vertex_positions(NULL, out, 3) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_surface_positions(object, NULL, 3) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_surface_positions_f(NULL, outf, 3) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_create(NULL, NULL) == NULL);
  CHECK(strcmp(ramus_status_name(RAMUS_DIVERGED), "diverged") == 0);
  CHECK(strcmp(ramus_status_name(RAMUS_OK), "ok") == 0);
}

/* Placement, settings, a pull, steps, picking and the positions of all vertices. */
static void check_object(const ramus_model* model) {
  ramus_status status = RAMUS_INTERNAL_ERROR;
  ramus_object* object = ramus_object_create(model, &status);
  const int V = ramus_model_num_vertices(model);
  double* rest = malloc(sizeof(double) * 3 * (size_t)V);
  double* placed = malloc(sizeof(double) * 3 * (size_t)V);
  double* moved = malloc(sizeof(double) * 3 * (size_t)V);
  float* moved_f = malloc(sizeof(float) * 3 * (size_t)V);
  /* 90 degrees about z, then 1 m up. */
  const double quarter[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}, up[3] = {0, 0, 1};
  const double gravity[3] = {0, 0, -9.81}, wind[3] = {3, 0, 0}, pull[3] = {0, 0, 5};
  const double down[3] = {0, 0, -1}, away[3] = {0, 0, 1};
  double top[3], along = -1, worst = 0, displacement = 0;
  int v, k, far = 0;
  CHECK(status == RAMUS_OK && object != NULL);
  if (!object) return;
  check_errors(model, object);
  CHECK(ramus_object_vertex_positions(object, rest, 3 * (size_t)V) == RAMUS_OK);
  /* Placed: every vertex rotated and moved up, at rest. */
  CHECK(ramus_object_set_placement(object, quarter, up) == RAMUS_OK);
  CHECK(ramus_object_vertex_positions(object, placed, 3 * (size_t)V) == RAMUS_OK);
  for (v = 0; v < V; ++v) {
    worst = fmax(worst, fabs(placed[3 * v] + rest[3 * v + 1]));
    worst = fmax(worst, fabs(placed[3 * v + 1] - rest[3 * v]));
    worst = fmax(worst, fabs(placed[3 * v + 2] - rest[3 * v + 2] - 1));
  }
  CHECK(worst < 1e-12);
  /* Settings the object then steps with. */
  CHECK(ramus_object_set_time_step(object, 0.005) == RAMUS_OK);
  CHECK(ramus_object_set_integrator(object, RAMUS_SIERE) == RAMUS_OK);
  CHECK(ramus_object_set_integrator(object, RAMUS_SEMI_IMPLICIT_BDF2) == RAMUS_OK);
  CHECK(ramus_object_set_damping(object, 0.5, 0.001) == RAMUS_OK);
  CHECK(ramus_object_set_gravity(object, gravity) == RAMUS_OK);
  CHECK(ramus_object_set_wind(object, wind, 0.3, 0.5, 7) == RAMUS_OK);
  /* The vertex farthest from vertex 0 (a corner: the far end's top), picked by a ray from
   * above, then pulled. */
  for (v = 0; v < V; ++v)
    if (distance2(placed, v, 0) > distance2(placed, far, 0)) far = v;
  top[0] = placed[3 * far];
  top[1] = placed[3 * far + 1];
  top[2] = placed[3 * far + 2] + 10;
  CHECK(ramus_object_pick_vertex(object, top, down, 1e-9, &along) == far);
  CHECK(fabs(along - 10) < 1e-9);
  CHECK(ramus_object_pick_vertex(object, top, away, 1e-3, NULL) == -1);
  CHECK(ramus_object_apply_force(object, far, pull) == RAMUS_OK);
  for (k = 0; k < 50; ++k) CHECK(ramus_object_step(object) == RAMUS_OK);
  CHECK(fabs(ramus_object_time(object) - 0.25) < 1e-12);
  CHECK(ramus_object_clear_forces(object) == RAMUS_OK);
  CHECK(ramus_object_step(object) == RAMUS_OK);
  CHECK(ramus_object_vertex_positions(object, moved, 3 * (size_t)V) == RAMUS_OK);
  CHECK(ramus_object_vertex_positions_f(object, moved_f, 3 * (size_t)V) == RAMUS_OK);
  worst = 0;
  for (v = 0; v < 3 * V; ++v) {
    displacement = fmax(displacement, fabs(moved[v] - placed[v]));
    worst = fmax(worst, fabs(moved[v] - (double)moved_f[v]));
  }
  CHECK(displacement > 1e-4 && displacement < 1);
  CHECK(worst < 1e-5);
  /* A step that fails leaves the state as it was: an absurd pull. */
  {
    const double fling[3] = {1e15, 0, 0};
    const double before = ramus_object_time(object);
    ramus_status flung;
    CHECK(ramus_object_apply_force(object, far, fling) == RAMUS_OK);
    flung = ramus_object_step(object);
    CHECK(flung == RAMUS_DIVERGED || flung == RAMUS_NON_FINITE);
    CHECK(ramus_object_time(object) == before);
    CHECK(strlen(ramus_last_error()) > 0);
  }
  ramus_object_free(object);
  free(rest);
  free(placed);
  free(moved);
  free(moved_f);
}

/* Signed models: accepted with their key, refused with another, unsigned refused when signed
 * only; malformed keys named. */
static void check_signed(const char* signed_path, const char* unsigned_path, const char* key) {
  const char* other = "574d26c3363ae974b94ff3ca0cadd3c2f8d38566d16dee913489a0e9c425e77a";
  const char* both[2];
  const char* bad = "not a key";
  ramus_status status;
  ramus_model* model;
  both[0] = other;
  both[1] = key;
  model = ramus_model_load_signed(signed_path, both, 2, 1, &status);
  CHECK(model != NULL && status == RAMUS_OK);
  ramus_model_free(model);
  CHECK(ramus_model_load_signed(signed_path, &other, 1, 0, &status) == NULL &&
        status == RAMUS_FILE_ERROR);
  CHECK(strstr(ramus_last_error(), "signed by a key that is not trusted here") != NULL);
  CHECK(ramus_model_load_signed(unsigned_path, &key, 1, 1, &status) == NULL &&
        status == RAMUS_FILE_ERROR);
  CHECK(strstr(ramus_last_error(), "the file is not signed") != NULL);
  model = ramus_model_load_signed(unsigned_path, &key, 1, 0, &status);
  CHECK(model != NULL && status == RAMUS_OK);
  ramus_model_free(model);
  CHECK(ramus_model_load_signed(signed_path, &bad, 1, 0, &status) == NULL &&
        status == RAMUS_INVALID_ARGUMENT);
  CHECK(strstr(ramus_last_error(), "public key 0") != NULL);
  CHECK(ramus_model_load_signed(signed_path, NULL, 0, 1, &status) == NULL &&
        status == RAMUS_INVALID_ARGUMENT);
}

/* The vertex shader's data rebuild what ramus_object_render_vertices draws, under a rotated
 * placement: each piece's tables, every domain's transform and q in float. */
static void check_render_pieces(const ramus_model* model, ramus_object* object) {
  const double quarter[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}, shift[3] = {1, 2, 3};
  const int S = ramus_model_num_surface_vertices(model), n = ramus_model_num_domains(model);
  const int pieces = ramus_model_num_render_pieces(model);
  float* drawn = malloc(sizeof(float) * 6 * (size_t)S);
  float* transforms = malloc(sizeof(float) * 16 * (size_t)n);
  float* q = malloc(sizeof(float) * (size_t)ramus_model_num_coordinates(model));
  ramus_render_piece piece;
  double worst = 0, unit = 0;
  int p, j, v, c, l, covered = 0;
  CHECK(pieces > 0);
  CHECK(ramus_model_render_piece(model, pieces, &piece) == RAMUS_INVALID_ARGUMENT);
  CHECK(strstr(ramus_last_error(), "out of range") != NULL);
  CHECK(ramus_model_render_piece(model, 0, NULL) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_render_vertices(object, drawn, 6 * (size_t)S - 1, 1) ==
        RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_placement(object, quarter, shift) == RAMUS_OK);
  CHECK(ramus_object_step(object) == RAMUS_OK);
  CHECK(ramus_object_render_vertices(object, drawn, 6 * (size_t)S, 1) == RAMUS_OK);
  CHECK(ramus_object_render_transforms(object, transforms, 16 * (size_t)n) == RAMUS_OK);
  CHECK(ramus_object_coordinates_f(object, q, (size_t)ramus_model_num_coordinates(model)) ==
        RAMUS_OK);
  for (p = 0; p < pieces; ++p) {
    CHECK(ramus_model_render_piece(model, p, &piece) == RAMUS_OK);
    for (j = 0; j < piece.num_domains; ++j) {
      const float* t = transforms + 16 * piece.domains[j];
      const float* qj = q + piece.first_coordinate + j * piece.num_coordinates;
      for (v = 0; v < piece.num_vertices; ++v) {
        const float* out = drawn + 6 * (piece.first_vertex + j * piece.num_vertices + v);
        float local[3], normal[3], length = 0;
        for (c = 0; c < 3; ++c) {
          const int at = c * piece.num_vertices + v; /* tables by coordinate */
          local[c] = t[12] * piece.rest[at];
          normal[c] = piece.rest_normals[at];
          for (l = 0; l < piece.num_coordinates; ++l) {
            const int row = l * 3 * piece.num_vertices + at;
            local[c] += t[13] * piece.position_basis[row] * qj[l];
            normal[c] += t[14] * piece.normal_basis[row] * qj[l];
          }
          length += normal[c] * normal[c];
        }
        for (c = 0; c < 3; ++c) {
          /* x = o + R local, n = R normal / |normal| (R column-major). */
          const double x = t[9 + c] + t[c] * local[0] + t[3 + c] * local[1] + t[6 + c] * local[2];
          const double m =
              (t[c] * normal[0] + t[3 + c] * normal[1] + t[6 + c] * normal[2]) / sqrt(length);
          worst = fmax(worst, fmax(fabs(x - out[c]), fabs(m - out[3 + c])));
        }
        unit = fmax(unit, fabs(sqrt(out[3] * out[3] + out[4] * out[4] + out[5] * out[5]) - 1));
        ++covered;
      }
    }
  }
  CHECK(covered == S);
  CHECK(worst < 1e-5);
  CHECK(unit < 1e-5);
  free(drawn);
  free(transforms);
  free(q);
}

/* A model with an embedded render surface: its triangles and positions. */
static void check_surface(const char* path) {
  ramus_status status;
  ramus_model* model = ramus_model_load(path, &status);
  ramus_object* object = ramus_object_create(model, &status);
  const int S = ramus_model_num_surface_vertices(model);
  const int F = ramus_model_num_surface_triangles(model);
  int* triangles = malloc(sizeof(int) * 3 * (size_t)F);
  double* x = malloc(sizeof(double) * 3 * (size_t)S);
  float* xf = malloc(sizeof(float) * 3 * (size_t)S);
  double worst = 0;
  int i, in_range = 1;
  CHECK(model != NULL && object != NULL && S > 0 && F > 0);
  if (!object) return;
  CHECK(ramus_model_surface_triangles(model, triangles, 3 * (size_t)F) == RAMUS_OK);
  for (i = 0; i < 3 * F; ++i) in_range &= triangles[i] >= 0 && triangles[i] < S;
  CHECK(in_range);
  CHECK(ramus_object_surface_positions(object, x, 3 * (size_t)S - 1) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_step(object) == RAMUS_OK);
  CHECK(ramus_object_surface_positions(object, x, 3 * (size_t)S) == RAMUS_OK);
  CHECK(ramus_object_surface_positions_f(object, xf, 3 * (size_t)S) == RAMUS_OK);
  for (i = 0; i < 3 * S; ++i) worst = fmax(worst, fabs(x[i] - (double)xf[i]));
  CHECK(isfinite(worst) && worst < 1e-5);
  check_render_pieces(model, object);
  ramus_object_free(object);
  ramus_model_free(model);
  free(triangles);
  free(x);
  free(xf);
}

/* Every setting by name: listed, read, written back within its bounds, refused outside them; a
 * per-domain one domain by domain; gravity in world axes under a rotated placement. */
static void check_settings(const ramus_model* model) {
  ramus_object* object = ramus_object_create(model, NULL);
  const int n = ramus_setting_count(), domains = ramus_model_num_domains(model);
  const double quarter[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}, origin[3] = {0, 0, 0};
  const double sideways[3] = {1, 0, 0}, huge[3] = {1e9, 0, 0};
  double value[3] = {0, 0, 0}, h = 0.004, two = 2, alpha = 0, scale = 0;
  int i, listed = 0, readable = 0, cloth = 0;
  CHECK(n >= 28);
  CHECK(ramus_setting_name(-1) == NULL && ramus_setting_name(n) == NULL);
  for (i = 0; i < n; ++i) {
    const char* name = ramus_setting_name(i);
    listed += name != NULL;
    if (!name) continue;
    cloth += strncmp(name, "cloth.", 6) == 0 || strcmp(name, "steps") == 0;
    /* A vector takes 3 values, anything else 1; only an object's settings are listed (not the
       scenario's, the cloth's or the full-space solvers'). */
    if (ramus_object_get_setting(object, name, 0, value, 1) == RAMUS_OK ||
        ramus_object_get_setting(object, name, 0, value, 3) == RAMUS_OK)
      ++readable;
  }
  CHECK(listed == n);
  CHECK(cloth == 0);
  CHECK(readable == n);
  CHECK(ramus_object_get_setting(object, "cloth.stretch_stiffness", 0, value, 1) ==
        RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_get_setting(object, "steps", 0, value, 1) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_get_setting(object, "no_such", 0, value, 1) == RAMUS_INVALID_ARGUMENT);
  CHECK(strstr(ramus_last_error(), "no such setting") != NULL);
  /* Whole object: written, read back; refused outside its bounds, naming it, and kept. */
  CHECK(ramus_object_set_setting(object, "time_step", -1, &h, 1) == RAMUS_OK);
  CHECK(ramus_object_get_setting(object, "time_step", 0, value, 1) == RAMUS_OK && value[0] == h);
  CHECK(ramus_object_set_setting(object, "time_step", -1, &two, 1) == RAMUS_INVALID_ARGUMENT);
  CHECK(strstr(ramus_last_error(), "time_step: must lie in (0, 1] s, got 2") != NULL);
  CHECK(ramus_object_get_setting(object, "time_step", 0, value, 1) == RAMUS_OK && value[0] == h);
  CHECK(ramus_object_set_setting(object, "time_step", -1, &h, 3) == RAMUS_INVALID_ARGUMENT);
  /* Per domain: one domain, then every domain (-1); a domain that does not exist. */
  CHECK(ramus_object_set_setting(object, "stiffness_scale", 1, &two, 1) == RAMUS_OK);
  CHECK(ramus_object_get_setting(object, "stiffness_scale", 0, &scale, 1) == RAMUS_OK);
  CHECK(scale == 1);
  CHECK(ramus_object_get_setting(object, "stiffness_scale", 1, &scale, 1) == RAMUS_OK);
  CHECK(scale == 2);
  CHECK(ramus_object_set_setting(object, "rayleigh_mass", -1, &two, 1) == RAMUS_OK);
  CHECK(ramus_object_get_setting(object, "rayleigh_mass", domains - 1, &alpha, 1) == RAMUS_OK);
  CHECK(alpha == 2);
  CHECK(ramus_object_get_setting(object, "rayleigh_mass", domains, &alpha, 1) ==
        RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_get_setting(object, "rayleigh_mass", -1, &alpha, 1) == RAMUS_INVALID_ARGUMENT);
  /* Gravity is the world's: read back as given under a rotated placement; bounded. */
  CHECK(ramus_object_set_placement(object, quarter, origin) == RAMUS_OK);
  CHECK(ramus_object_set_setting(object, "gravity", -1, sideways, 3) == RAMUS_OK);
  CHECK(ramus_object_get_setting(object, "gravity", 0, value, 3) == RAMUS_OK);
  CHECK(value[0] == 1 && value[1] == 0 && value[2] == 0);
  CHECK(ramus_object_set_setting(object, "gravity", -1, huge, 3) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_step(object) == RAMUS_OK);
  ramus_object_free(object);
}

/* Colliders: added, moved kinematically into the beam (0.4 x 0.1 x 0.1 m, clamped at x = 0),
 * pushing it up; bad ones refused with a reason and the object left as it was. */
/* The sphere of check_colliders as a grid of its signed distance (1 cm, 31 samples each way):
 * a NaN in it refused by index; raised under the beam, it pushes the beam up. */
static float grid_values[31 * 31 * 31];
static void check_grid_collider(const ramus_model* model, const ramus_collider* sphere) {
  ramus_object* object = ramus_object_create(model, NULL);
  const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, no_gravity[3] = {0, 0, 0};
  ramus_collider grid = *sphere;
  double force[3] = {0, 0, 0}, smallest = 0, position[3], pushed = 0, deepest = INFINITY;
  int i, j, k, id, active = -1, step;
  if (!object) return;
  for (k = 0; k < 31; ++k)
    for (j = 0; j < 31; ++j)
      for (i = 0; i < 31; ++i)
        grid_values[i + 31 * (j + 31 * k)] =
            (float)(sqrt((i - 15) * (i - 15) + (j - 15) * (j - 15) + (k - 15) * (k - 15)) * 0.01 -
                    0.1);
  grid.shape = RAMUS_GRID;
  grid.size[0] = 0;
  grid.grid_values = grid_values;
  grid.grid_samples[0] = grid.grid_samples[1] = grid.grid_samples[2] = 31;
  grid.grid_origin[0] = grid.grid_origin[1] = grid.grid_origin[2] = -0.15;
  grid.grid_spacing = 0.01;
  grid_values[17] = NAN;
  CHECK(ramus_object_add_collider(object, &grid, NULL) == -1);
  CHECK(strstr(ramus_last_error(), "grid: value 17 is not finite") != NULL);
  grid_values[17] =
      (float)(sqrt(2 * 2 + 15 * 15 + 15 * 15) * 0.01 - 0.1); /* (i, j, k) = (17, 0, 0) */
  id = ramus_object_add_collider(object, &grid, NULL);
  CHECK(id >= 0);
  CHECK(ramus_object_set_gravity(object, no_gravity) == RAMUS_OK);
  memcpy(position, grid.position, sizeof position);
  for (step = 0; step < 6; ++step) {
    position[2] += 0.01;
    CHECK(ramus_object_move_collider(object, id, identity, position, 0.01) == RAMUS_OK);
    CHECK(ramus_object_step(object) == RAMUS_OK);
    CHECK(ramus_object_contact(object, force, &active, &smallest) == RAMUS_OK);
    if (step < 3) pushed += force[2];
    deepest = smallest < deepest ? smallest : deepest;
  }
  /* Pushed up while the sphere rises under the free end (later the end slides off the grid's
   * facets); no sample ever 5 mm inside. */
  CHECK(pushed > 0);
  CHECK(deepest > -0.005);
  ramus_object_free(object);
}

static void check_colliders(const ramus_model* model) {
  ramus_object* object = ramus_object_create(model, NULL);
  const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, no_gravity[3] = {0, 0, 0};
  ramus_collider sphere;
  ramus_collider bad;
  ramus_status status = RAMUS_OK;
  double force[3] = {0, 0, 0}, smallest = 0, position[3];
  int id, active = -1, step, touched = 0, pushed = 0;
  if (!object) return;
  memset(&sphere, 0, sizeof sphere);
  sphere.shape = RAMUS_SPHERE;
  sphere.size[0] = 0.1;
  memcpy(sphere.rotation, identity, sizeof identity);
  /* Under the free end: 2 cm from its bottom corners, the samples of this coarse beam. */
  sphere.position[0] = 0.4;
  sphere.position[1] = 0.05;
  sphere.position[2] = -sqrt(0.12 * 0.12 - 0.05 * 0.05);
  /* Refused: NULL, a zero radius, mu < 0, a rotation that is none, inside the beam. */
  CHECK(ramus_object_add_collider(object, NULL, &status) == -1 && status != RAMUS_OK);
  bad = sphere;
  bad.shape = RAMUS_CAPSULE;
  bad.size[0] = 0;
  CHECK(ramus_object_add_collider(object, &bad, &status) == -1);
  CHECK(status == RAMUS_INVALID_ARGUMENT && strstr(ramus_last_error(), "radius") != NULL);
  bad = sphere;
  bad.friction = -1;
  CHECK(ramus_object_add_collider(object, &bad, NULL) == -1);
  CHECK(strstr(ramus_last_error(), "friction") != NULL);
  bad = sphere;
  bad.rotation[0] = 2;
  CHECK(ramus_object_add_collider(object, &bad, NULL) == -1);
  bad = sphere;
  bad.position[2] = 0.05; /* about the free end's axis: its corners 2.9 cm inside */
  CHECK(ramus_object_add_collider(object, &bad, NULL) == -1);
  CHECK(strstr(ramus_last_error(), "inside") != NULL);
  CHECK(ramus_object_contact(object, force, &active, &smallest) == RAMUS_OK);
  CHECK(active == 0 && smallest == INFINITY);
  /* Added, then raised 1 cm a step for 6 steps: 4 cm into where the beam's corners were. */
  id = ramus_object_add_collider(object, &sphere, &status);
  CHECK(id >= 0 && status == RAMUS_OK);
  CHECK(ramus_object_set_gravity(object, no_gravity) == RAMUS_OK);
  memcpy(position, sphere.position, sizeof position);
  /* (At 1 m/s it knocks the free end away: it touches and pushes up on the way, never deep.) */
  for (step = 0; step < 6; ++step) {
    position[2] += 0.01;
    CHECK(ramus_object_move_collider(object, id, identity, position, 0.01) == RAMUS_OK);
    CHECK(ramus_object_step(object) == RAMUS_OK);
    CHECK(ramus_object_contact(object, force, &active, &smallest) == RAMUS_OK);
    touched += active > 0;
    pushed += force[2] > 0;
    CHECK(smallest > -0.005);
  }
  CHECK(touched > 0);
  CHECK(pushed > 0);
  /* Unknown ids and bad moves; then removed. */
  CHECK(ramus_object_move_collider(object, id + 1, identity, position, 0.01) ==
        RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_move_collider(object, id, identity, position, 0) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_collider(object, id + 1, &sphere) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_collider(object, id, &sphere) == RAMUS_OK);
  CHECK(ramus_object_remove_collider(object, id) == RAMUS_OK);
  CHECK(ramus_object_remove_collider(object, id) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_contact(NULL, force, &active, &smallest) == RAMUS_INVALID_ARGUMENT);
  ramus_object_free(object);
  check_grid_collider(model, &sphere);
}

int main(int argc, char** argv) {
  ramus_status status = RAMUS_OK;
  ramus_model* model;
  int* triangles;
  int F, i, in_range = 1;
  double out[3];
  if (argc < 5) {
    fprintf(stderr,
            "usage: test_c_api <model.h5> <not-a-model.h5> <signed model.h5> <its "
            "public key, hex> [<surface model.h5>]\n");
    return 2;
  }
  CHECK(strlen(ramus_version()) > 0);
  /* Files that do not load: a status and a message naming the file. */
  CHECK(ramus_model_load(NULL, &status) == NULL && status == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_model_load("/no/such/model.h5", &status) == NULL && status == RAMUS_FILE_ERROR);
  CHECK(strstr(ramus_last_error(), "/no/such/model.h5") != NULL);
  CHECK(ramus_model_load(argv[2], NULL) == NULL);
  CHECK(strstr(ramus_last_error(), argv[2]) != NULL);
  /* The model: its counts and boundary. */
  model = ramus_model_load(argv[1], &status);
  CHECK(model != NULL && status == RAMUS_OK);
  if (!model) return 1;
  CHECK(ramus_model_num_domains(model) >= 2);
  CHECK(ramus_model_num_vertices(model) > 0);
  F = ramus_model_num_boundary_triangles(model);
  CHECK(F > 0);
  triangles = malloc(sizeof(int) * 3 * (size_t)F);
  CHECK(ramus_model_boundary_triangles(model, triangles, 3 * (size_t)F) == RAMUS_OK);
  for (i = 0; i < 3 * F; ++i)
    in_range &= triangles[i] >= 0 && triangles[i] < ramus_model_num_vertices(model);
  CHECK(in_range);
  free(triangles);
  check_object(model);
  check_settings(model);
  check_colliders(model);
  {
    /* Surface positions into a buffer of the wrong size (or of a model without one). */
    ramus_object* object = ramus_object_create(model, NULL);
    CHECK(ramus_object_surface_positions(object, out, 3) == RAMUS_INVALID_ARGUMENT);
    CHECK(strstr(ramus_last_error(), ramus_model_num_surface_vertices(model) > 0
                                         ? "the buffer holds 3 values"
                                         : "the model has no surface") != NULL);
    /* Objects outlive the model handle (they share the model). */
    ramus_model_free(model);
    CHECK(ramus_object_step(object) == RAMUS_OK);
    ramus_object_free(object);
  }
  check_signed(argv[3], argv[1], argv[4]);
  check_surface(argc > 5 ? argv[5] : argv[1]);
  ramus_model_free(NULL);
  ramus_object_free(NULL);
  if (failures)
    fprintf(stderr, "%d checks failed\n", failures);
  else
    printf("C API: all checks passed\n");
  return failures ? 1 : 0;
}
