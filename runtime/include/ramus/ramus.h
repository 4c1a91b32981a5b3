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
  RAMUS_FILE_ERROR = 5,       /**< a model file or state snapshot is missing, corrupt, or of
                                   another version */
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
/** The message of the last failed call on this thread; a call that returns RAMUS_OK (or a pick
 * that hits or misses, a collider added) clears it to "". */
const char* ramus_last_error(void);
/** Receives every failure's status and message (on the failing call's thread, before it returns;
 * the message lives until the thread's next call). */
typedef void (*ramus_error_callback)(ramus_status status, const char* message, void* user_data);
/** Sets the process's error callback (NULL: none); thread-safe. */
void ramus_set_error_callback(ramus_error_callback callback, void* user_data);
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
/** Loads a model file's bytes from memory (a game's archive; the caller may free them on return),
 * named `name` in messages (NULL: "<model in memory>"), with the same checks as a file: the
 * integrity seal and, with num_keys > 0 or signed_only, the signature (as
 * ramus_model_load_signed; public_keys_hex may be NULL when num_keys is 0). */
ramus_model* ramus_model_load_memory(const void* data, size_t size, const char* name,
                                     const char* const* public_keys_hex, size_t num_keys,
                                     int signed_only, ramus_status* status);
/** Frees a model; objects made from it keep their own reference. NULL is ignored. */
void ramus_model_free(ramus_model* model);

/** Counts: domains; vertices of the whole mesh (interface vertices once); the boundary of the
 * tet mesh (triangles); the render mesh (vertices, triangles: each part's render surface once
 * per domain placing it, else its share of the tet mesh's boundary). 0 for a NULL model. */
int ramus_model_num_domains(const ramus_model* model);
int ramus_model_num_vertices(const ramus_model* model);
int ramus_model_num_boundary_triangles(const ramus_model* model);
int ramus_model_num_surface_vertices(const ramus_model* model);
int ramus_model_num_surface_triangles(const ramus_model* model);
/** Vertex indices of the boundary triangles (3 per triangle, into the vertices, outward) or of
 * the render mesh's triangles (into the surface vertices); count = 3 triangles. */
ramus_status ramus_model_boundary_triangles(const ramus_model* model, int* out, size_t count);
ramus_status ramus_model_surface_triangles(const ramus_model* model, int* out, size_t count);

/** The domain tree: parts (distinct meshes, each placed by one or more domains) and, per domain,
 * its name, its parent (-1 for the root), its part, its reduced coordinates r, its children and
 * its part's vertices. Names live as long as the model. */
typedef struct ramus_domain_info {
  const char* name;
  int parent;
  int part;
  int num_coordinates;
  int num_children;
  int num_vertices;
} ramus_domain_info;
int ramus_model_num_parts(const ramus_model* model);
/** The name of a part; NULL outside 0 .. parts - 1. */
const char* ramus_model_part_name(const ramus_model* model, int part);
ramus_status ramus_model_domain_info(const ramus_model* model, int domain, ramus_domain_info* out);

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
/** Moves an anchored object kinematically (a plant on a cart, a branch in a hand): its anchor
 * reaches this placement (rotation row-major, translation; world) at the end of the next step of
 * `seconds` (> 0, normally the time step), with the velocity and acceleration differenced from
 * the placements given, and the object feels the motion (it sways). Call it every frame before the
 * step; positions and frames come back where the object is. ramus_object_set_placement is a
 * teleport: the anchor comes to rest in the new placement. RAMUS_INVALID_ARGUMENT for a free
 * root (it moves by its own dynamics) or an anchored single domain without system-force data
 * asked to rotate. */
ramus_status ramus_object_move_placement(ramus_object* object, const double rotation[9],
                                         const double translation[3], double seconds);

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

/** Getters of the common settings (any other: ramus_object_get_setting): the time step (s) and
 * gravity (m/s^2, world). */
ramus_status ramus_object_get_time_step(const ramus_object* object, double* time_step);
ramus_status ramus_object_get_gravity(const ramus_object* object, double gravity[3]);

/** Threads a step of this object uses (1 by default; clamped to [1, 64]; 1 in a build without
 * OpenMP); the results equal one thread's bit for bit. Allocates: call it outside the frame loop.
 */
ramus_status ramus_object_set_threads(ramus_object* object, int threads);
/** The threads it steps with (0 for a NULL object). */
int ramus_object_threads(const ramus_object* object);

/** A constant force (N, world) at a vertex of the whole mesh for the following steps (forces at
 * one vertex add up); ramus_object_clear_forces removes them all. */
ramus_status ramus_object_apply_force(ramus_object* object, int vertex, const double force[3]);
ramus_status ramus_object_clear_forces(ramus_object* object);
/** The boundary vertex nearest to a ray (origin and direction in the world; the direction need
 * not be unit) among those within max_distance (m) of it and in front of its origin; -1 when
 * none is (a miss, no error); -2 for a bad argument (message in ramus_last_error()).
 * *distance_along (optional) receives the distance from the origin along the ray. */
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
/** Many objects in one call (a forest): each object's whole step on one thread, so each result
 * equals its lone step's to the last bit for any thread count. Steps `count` objects (of any
 * models) spread over `threads` threads (1: the calling thread); statuses (optional, count
 * entries) receive each object's; returns how many failed (ramus_last_error() names the first).
 * Leave the objects at one thread each (ramus_object_set_threads). Allocation-free after the
 * first call on a thread count. */
int ramus_step_objects(ramus_object* const* objects, size_t count, int threads,
                       ramus_status* statuses);
/** A game's job system: calls task(context, i) once for every i in [0, count), on its workers in
 * any order, and returns when all have returned. */
typedef void (*ramus_parallel_for)(void* job_system, int count,
                                   void (*task)(void* context, int index), void* context);
/** The same on a game's job system (one task per object). */
int ramus_step_objects_on(ramus_object* const* objects, size_t count,
                          ramus_parallel_for parallel_for, void* job_system,
                          ramus_status* statuses);

/** Simulated time (s) since creation. */
double ramus_object_time(const ramus_object* object);

/** Domain i after the last step, in the world: its frame F_i (rotation: its axes, 9 values
 * row-major; origin, m), the frame's velocity (m/s) and angular velocity (rad/s), and its reduced
 * coordinates q and velocities (r values each; either pointer may be NULL). */
ramus_status ramus_object_domain_frame(const ramus_object* object, int domain, double rotation[9],
                                       double origin[3]);
ramus_status ramus_object_domain_velocity(const ramus_object* object, int domain,
                                          double velocity[3], double angular_velocity[3]);
ramus_status ramus_object_domain_coordinates(const ramus_object* object, int domain, double* q,
                                             double* qdot, size_t count);

/** Parts of an object's state a snapshot holds (docs/STATES.md; or them together). */
typedef enum ramus_state_part {
  RAMUS_STATE_TIME = 1,
  RAMUS_STATE_COORDINATES = 2, /**< q, the domains' frames (a free root's placement) */
  RAMUS_STATE_VELOCITIES = 4,  /**< q', q'', the frames' velocities, a free root's momenta */
  RAMUS_STATE_INTEGRATOR = 8,  /**< integrator history and memory */
  RAMUS_STATE_FORCES = 16,     /**< applied forces */
  RAMUS_STATE_COLLIDERS = 32,  /**< colliders by id (a grid's values stay the object's own) */
  RAMUS_STATE_SETTINGS = 64,   /**< every setting */
  RAMUS_STATE_PHYSICS = 15,    /**< restored, the following steps repeat bit for bit */
  RAMUS_STATE_ALL = 127
} ramus_state_part;
/** Back at rest: time 0, no deformation, the rest placement, no applied forces (settings,
 * colliders and the world placement kept). Allocation-free. */
ramus_status ramus_object_reset(ramus_object* object);
/** Bytes a snapshot of `parts` takes (0 for a NULL object or unknown parts). */
size_t ramus_object_state_size(const ramus_object* object, unsigned parts);
/** Writes a snapshot (a versioned blob with a CRC-32) into buffer; *written (optional) receives
 * its size. RAMUS_INVALID_ARGUMENT when capacity is below ramus_object_state_size. */
ramus_status ramus_object_save_state(const ramus_object* object, unsigned parts, void* buffer,
                                     size_t capacity, size_t* written);
/** Restores a snapshot of an object of this model (or of a model of the same domain tree); the
 * object is unchanged unless RAMUS_OK (RAMUS_FILE_ERROR: corrupt, truncated or of another version;
 * RAMUS_INVALID_ARGUMENT: another model, or no room for its colliders). Gravity, wind, colliders
 * and forces are restored relative to the object (its model axes). Allocation-free. */
ramus_status ramus_object_restore_state(ramus_object* object, const void* buffer, size_t size);
/** Copies `parts` of another object's state (the same model) without a blob; as restore. */
ramus_status ramus_object_copy_state(ramus_object* to, const ramus_object* from, unsigned parts);

/** World positions of all vertices (count = 3 ramus_model_num_vertices) or of the render mesh
 * (count = 3 ramus_model_num_surface_vertices), in double or float. */
ramus_status ramus_object_vertex_positions(ramus_object* object, double* out, size_t count);
ramus_status ramus_object_vertex_positions_f(ramus_object* object, float* out, size_t count);
ramus_status ramus_object_surface_positions(ramus_object* object, double* out, size_t count);
ramus_status ramus_object_surface_positions_f(ramus_object* object, float* out, size_t count);

/* Rendering (docs/RENDERING.md). The render mesh in the world, interleaved floats: x y z per
 * vertex (normals == 0: count = 3 ramus_model_num_surface_vertices) or x y z nx ny nz (count =
 * 6 of them, unit normals); the object's placement applied. Allocation-free. */
ramus_status ramus_object_render_vertices(ramus_object* object, float* out, size_t count,
                                          int normals);

/** One piece of the render mesh, for a vertex shader: its tables (pointers into the model, valid
 * while it lives; upload them once) and the domains drawing it. Domain j of the piece (j <
 * num_domains) draws render vertices first_vertex + j num_vertices + v with its q at
 * first_coordinate + j num_coordinates:
 *   x = o + R (s X_v + s_b P_v q),  n = R normalize(n_v + (s_b / s) N_v q)
 * with R, o, s, s_b, s_b / s from ramus_object_render_transforms. */
typedef struct ramus_render_piece {
  int part;            /* the part whose coordinates move it */
  int num_vertices;    /* S */
  int num_triangles;   /* F */
  int num_coordinates; /* r of its part */
  /* Tables by coordinate: coordinate c of vertex v at c S + v; in the bases' column l (per unit
   * q_l) at l 3S + c S + v. */
  const float* rest;           /* X: 3 S, part frame at unit scale (m) */
  const float* rest_normals;   /* n: 3 S, unit */
  const float* position_basis; /* P: 3S by r, column-major (m) */
  const float* normal_basis;   /* N: 3S by r, column-major */
  const int* triangles;        /* 3 F, into its own vertices */
  int num_domains;
  const int* domains;   /* the domains drawing it */
  int first_vertex;     /* render vertex of domain 0's vertex 0 */
  int first_triangle;   /* render triangle of domain 0's triangle 0 */
  int first_coordinate; /* index of domain 0's q in ramus_object_coordinates_f */
} ramus_render_piece;
int ramus_model_num_render_pieces(const ramus_model* model);
ramus_status ramus_model_render_piece(const ramus_model* model, int piece, ramus_render_piece* out);
/** Per frame, per domain 16 floats (count = 16 ramus_model_num_domains): R column-major (9), o
 * (3, m), s, s_b, s_b / s, 0, the object's placement folded in. Allocation-free. */
ramus_status ramus_object_render_transforms(ramus_object* object, float* out, size_t count);
/** All domains' reduced coordinates in float (count = ramus_model_num_coordinates), for upload. */
int ramus_model_num_coordinates(const ramus_model* model);
ramus_status ramus_object_coordinates_f(const ramus_object* object, float* out, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* RAMUS_H */
