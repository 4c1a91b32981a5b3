/* ramus.h: the C interface of the Ramus runtime (C99). Opaque handles; every function catches
 * what the C++ runtime throws and reports it as a status, with the message in ramus_last_error().
 * Units are SI (m, s, kg, N); arrays of points are x, y, z per point (3 n values); rotations are
 * 3 by 3, row-major. Lengths are counts of values, not bytes. docs/C_API.md walks through it. */
#ifndef RAMUS_H
#define RAMUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An immutable reduced model (one file); many objects may share it, on any thread. */
typedef struct ramus_model ramus_model;
/** One simulated object of a model: its state, its scratch memory and its world placement. */
typedef struct ramus_object ramus_object;

/** What a call did. Steps return the first four; the rest are the caller's or the file's. */
typedef enum ramus_status {
  RAMUS_OK = 0,
  RAMUS_NON_FINITE = 1,       /**< step: a coordinate became NaN or inf (state left as before) */
  RAMUS_DIVERGED = 2,         /**< step: a domain deformed beyond its bound (state as before) */
  RAMUS_SOLVER_FAILED = 3,    /**< step: an integrator's decomposition failed (state as before) */
  RAMUS_INVALID_ARGUMENT = 4, /**< a null handle, an index out of range, a bad value or size */
  RAMUS_FILE_ERROR = 5,       /**< the model file is missing, corrupt, or of another version */
  RAMUS_OUT_OF_MEMORY = 6,
  RAMUS_INTERNAL_ERROR = 7
} ramus_status;

/** Per-domain time integrators (docs/INTEGRATORS.md); the values of ramus::Integrator. */
typedef enum ramus_integrator {
  RAMUS_NEWMARK = 1,
  RAMUS_BACKWARD_EULER = 2,
  RAMUS_SEMI_IMPLICIT_EULER = 3,
  RAMUS_BDF2 = 4,
  RAMUS_SEMI_IMPLICIT_BDF2 = 5,
  RAMUS_TR_BDF2 = 6,
  RAMUS_SEMI_IMPLICIT_TR_BDF2 = 7,
  RAMUS_SDIRK = 8,
  RAMUS_ERE = 9,
  RAMUS_SIERE = 10,
  RAMUS_SBDF2ERE = 11,
  RAMUS_STR_SBDF2ERE = 12,
  RAMUS_IMPLICIT_MIDPOINT_BLEND = 13
} ramus_integrator;

/** The library's version, e.g. "0.2.0". */
const char* ramus_version(void);
/** The message of the last call on this thread that did not return RAMUS_OK ("" if none). */
const char* ramus_last_error(void);
/** The readable name of a status ("ok", "diverged", ...). */
const char* ramus_status_name(ramus_status status);

/** Loads a model file; NULL on failure (status in *status when status is not NULL, message in
 * ramus_last_error(), naming the file and what is wrong). */
ramus_model* ramus_model_load(const char* path, ramus_status* status);
/** Loads a signed model file: a signed file must be signed by one of the `num_keys` public keys
 * (each 64 hexadecimal digits, as in `ramus keygen`'s .pub file), checked before the file is
 * parsed; with signed_only non-zero an unsigned file is refused too. NULL on failure
 * (RAMUS_INVALID_ARGUMENT for a malformed key, RAMUS_FILE_ERROR for a refused file). */
ramus_model* ramus_model_load_signed(const char* path, const char* const* public_keys_hex,
                                     size_t num_keys, int signed_only, ramus_status* status);
/** Frees a model; objects made from it keep their own reference. NULL is ignored. */
void ramus_model_free(ramus_model* model);

/** Counts: domains; vertices of the whole mesh (interface vertices once); the boundary of the
 * tet mesh (triangles); the embedded render surface (vertices, triangles; 0 when the model has
 * none). 0 for a NULL model. */
int ramus_model_num_domains(const ramus_model* model);
int ramus_model_num_vertices(const ramus_model* model);
int ramus_model_num_boundary_triangles(const ramus_model* model);
int ramus_model_num_surface_vertices(const ramus_model* model);
int ramus_model_num_surface_triangles(const ramus_model* model);
/** Vertex indices of the boundary triangles (3 per triangle, into the vertices, outward) or of
 * the embedded surface's triangles (into the surface vertices); count = 3 triangles. */
ramus_status ramus_model_boundary_triangles(const ramus_model* model, int* out, size_t count);
ramus_status ramus_model_surface_triangles(const ramus_model* model, int* out, size_t count);

/** A new object of the model at rest, at the identity placement, with the model's stored
 * settings; NULL on failure (status and message as for ramus_model_load). */
ramus_object* ramus_object_create(const ramus_model* model, ramus_status* status);
/** Frees an object. NULL is ignored. */
void ramus_object_free(ramus_object* object);

/** Places the object in the world: world point = rotation model point + translation. Gravity,
 * wind, forces, rays and positions below are in world axes. rotation: 9 values, row-major, a
 * rotation to 1e-6; translation: finite, at most 1e9 m per axis (RAMUS_INVALID_ARGUMENT
 * otherwise). An object's State and Workspace are its own: the C API cannot mix models. */
ramus_status ramus_object_set_placement(ramus_object* object, const double rotation[9],
                                        const double translation[3]);

/** Runtime settings, taking effect at the next step: the time step (s, in (0, 1]); every
 * domain's integrator; Rayleigh damping alpha (1/s) and beta (s) of every domain; gravity
 * (m/s^2, world); wind (docs/WIND.md: mean velocity in m/s, world; gust: relative amplitude in
 * [0, 10]; turbulence: m/s; seed >= 0). */
ramus_status ramus_object_set_time_step(ramus_object* object, double time_step);
ramus_status ramus_object_set_integrator(ramus_object* object, ramus_integrator integrator);
ramus_status ramus_object_set_damping(ramus_object* object, double alpha, double beta);
ramus_status ramus_object_set_gravity(ramus_object* object, const double gravity[3]);
ramus_status ramus_object_set_wind(ramus_object* object, const double mean_velocity[3], double gust,
                                   double turbulence, int seed);

/** Any setting by name, as docs/SPEC.md "Settings" lists them ("time_step", "gravity",
 * "lumping", "wind.gust", "integrator", "rayleigh_mass", ...): count values, 3 for a vector and
 * 1 for anything else (an integrator or a lumping as its number). A per-domain setting takes the
 * domain `domain` (get: 0 to n-1; set: also -1 for every domain); the others ignore it. Gravity and
 * the wind's velocity are in world axes. Set checks the value against the same bounds as the
 * spec and the command line and takes effect at the next step. */
ramus_status ramus_object_get_setting(const ramus_object* object, const char* name, int domain,
                                      double* values, size_t count);
ramus_status ramus_object_set_setting(ramus_object* object, const char* name, int domain,
                                      const double* values, size_t count);
/** How many settings an object has, and the name of the index-th (0 to count-1; NULL outside),
 * to list them: the whole object's, the wind's and the per-domain ones. (The list's scenario,
 * cloth and full-space settings belong to the tools' runs: get and set refuse them.) */
int ramus_setting_count(void);
const char* ramus_setting_name(int index);

/** A constant force (N, world) at a vertex of the whole mesh for the following steps (forces at
 * one vertex add up); ramus_object_clear_forces removes them all. */
ramus_status ramus_object_apply_force(ramus_object* object, int vertex, const double force[3]);
ramus_status ramus_object_clear_forces(ramus_object* object);
/** The boundary vertex nearest to a ray (origin and direction in the world; the direction need
 * not be unit) among those within max_distance (m) of it and in front of its origin; -1 when
 * none is. *distance_along (optional) receives the distance from the origin along the ray. */
int ramus_object_pick_vertex(ramus_object* object, const double origin[3],
                             const double direction[3], double max_distance,
                             double* distance_along);

/** Kinematic colliders the game moves (docs/CONTACT.md, "Reduced contact"): analytic shapes or
 * a grid distance field, with a pose, velocities and Coulomb's mu, in world axes. Sizes by shape:
 * half-space none (its surface the local z = 0 plane, solid below); sphere {radius}; capsule
 * {radius, half length along local z}; box {half x, half y, half z, edge radius}; cylinder {radius,
 * half height, edge radius}; bowl {inner radius, wall thickness}. */
typedef enum ramus_collider_shape {
  RAMUS_HALF_SPACE = 0,
  RAMUS_SPHERE = 1,
  RAMUS_CAPSULE = 2,
  RAMUS_BOX = 3,
  RAMUS_CYLINDER = 4,
  RAMUS_BOWL = 5,
  RAMUS_GRID = 6 /**< a signed distance on a grid: the grid_* fields */
} ramus_collider_shape;
typedef struct ramus_collider {
  ramus_collider_shape shape;
  double size[4];             /**< m, by shape; unused entries 0 */
  double rotation[9];         /**< its axes in the world, row-major */
  double position[3];         /**< its origin (m, world) */
  double velocity[3];         /**< of its origin (m/s, world) */
  double angular_velocity[3]; /**< about its origin (rad/s, world) */
  double friction;            /**< Coulomb's mu, >= 0 */
  /** RAMUS_GRID: phi (m, negative inside) at grid_origin + grid_spacing (i, j, k) in the
   * collider's frame, i fastest, grid_samples[0] by [1] by [2] floats (at least 2 each way) at
   * grid_values, which the caller keeps alive and unchanged while the collider exists. */
  const float* grid_values;
  int grid_samples[3];
  double grid_origin[3]; /**< m */
  double grid_spacing;   /**< m */
} ramus_collider;

/** Adds a collider; its id (>= 0), or -1 with RAMUS_INVALID_ARGUMENT in *status (optional) and
 * the reason in ramus_last_error() when it is malformed (non-finite, a zero radius, mu < 0, not a
 * rotation), the object holds 8 already, or it starts inside the object deeper than the contact
 * distance (the message names the domain and vertex). The object is left as it was. */
int ramus_object_add_collider(ramus_object* object, const ramus_collider* collider,
                              ramus_status* status);
/** Replaces collider `id` (a teleport); the same checks as adding, but none against the object. */
ramus_status ramus_object_set_collider(ramus_object* object, int id,
                                       const ramus_collider* collider);
/** Moves collider `id` kinematically: sets its velocities so that the next step of `seconds`
 * (> 0, normally the time step) carries it to this pose (rotation row-major, position, world). */
ramus_status ramus_object_move_collider(ramus_object* object, int id, const double rotation[9],
                                        const double position[3], double seconds);
ramus_status ramus_object_remove_collider(ramus_object* object, int id);
/** The contact now: the total barrier force on the object (N, world; optional), the samples
 * within the contact distance (optional) and the smallest distance of a sample to a collider
 * (m; +inf without colliders; optional). */
ramus_status ramus_object_contact(const ramus_object* object, double force[3], int* active,
                                  double* smallest_distance);

/** One time step; allocation-free. On failure the state is left as before the step. */
ramus_status ramus_object_step(ramus_object* object);
/** Simulated time (s) since creation. */
double ramus_object_time(const ramus_object* object);

/** World positions of all vertices (count = 3 ramus_model_num_vertices) or of the embedded
 * surface (count = 3 ramus_model_num_surface_vertices), in double or float. */
ramus_status ramus_object_vertex_positions(ramus_object* object, double* out, size_t count);
ramus_status ramus_object_vertex_positions_f(ramus_object* object, float* out, size_t count);
ramus_status ramus_object_surface_positions(ramus_object* object, double* out, size_t count);
ramus_status ramus_object_surface_positions_f(ramus_object* object, float* out, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* RAMUS_H */
