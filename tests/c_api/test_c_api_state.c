/* The C interface's domain tree, per-domain motion, threads, error reporting, state
 * snapshots and loading from memory (runtime/src/c_api/ramus_c_state.cpp) from C99. Usage:
 *   test_c_api_state <model.h5> [<a model of another tree>]
 * Exit 0 when every check holds; each failed check is printed with its line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_checks.h"
#include "ramus/ramus.h"

static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
static const double quarter[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}; /* 90 degrees about z */

/* The domain tree: parents before children, parts and sizes in range, names. */
static void check_tree(const ramus_model* model) {
  const int n = ramus_model_num_domains(model), parts = ramus_model_num_parts(model);
  ramus_domain_info info;
  int i, coordinates = 0;
  CHECK(parts >= 1 && parts <= n);
  for (i = 0; i < n; ++i) {
    CHECK(ramus_model_domain_info(model, i, &info) == RAMUS_OK);
    CHECK(info.name != NULL && strlen(info.name) > 0);
    CHECK(i == 0 ? info.parent == -1 : (info.parent >= 0 && info.parent < i));
    CHECK(info.part >= 0 && info.part < parts && ramus_model_part_name(model, info.part) != NULL);
    CHECK(info.num_coordinates >= 0 && info.num_vertices > 0 && info.num_children >= 0);
    coordinates += info.num_coordinates;
  }
  CHECK(coordinates > 0);
  CHECK(ramus_model_domain_info(model, n, &info) == RAMUS_INVALID_ARGUMENT);
  CHECK(strstr(ramus_last_error(), "does not exist") != NULL);
  CHECK(ramus_model_domain_info(NULL, 0, &info) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_model_part_name(model, parts) == NULL && ramus_model_part_name(model, -1) == NULL);
  CHECK(ramus_model_num_parts(NULL) == 0);
}

static int errors_seen = 0;
static ramus_status last_seen = RAMUS_OK;
static void on_error(ramus_status status, const char* message, void* user_data) {
  ++*(int*)user_data;
  last_seen = status;
  CHECK(message != NULL && strlen(message) > 0);
}

/* A failure sets the message and calls the callback; a success clears it; a pick's miss is no
 * error, its bad argument is. */
static void check_errors(ramus_object* object) {
  const double origin[3] = {100, 100, 100}, up[3] = {0, 0, 1}, zero[3] = {0, 0, 0};
  double time_step = 0;
  ramus_set_error_callback(on_error, &errors_seen);
  CHECK(ramus_object_set_time_step(object, -1) == RAMUS_INVALID_ARGUMENT);
  CHECK(strlen(ramus_last_error()) > 0);
  CHECK(errors_seen == 1 && last_seen == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_get_time_step(object, &time_step) == RAMUS_OK && time_step > 0);
  CHECK(strcmp(ramus_last_error(), "") == 0);
  CHECK(ramus_object_pick_vertex(object, origin, zero, 1, NULL) == -2);
  CHECK(strstr(ramus_last_error(), "pick") != NULL && errors_seen == 2);
  CHECK(ramus_object_pick_vertex(object, origin, up, 1e-3, NULL) == -1); /* a miss */
  CHECK(strcmp(ramus_last_error(), "") == 0 && errors_seen == 2);
  ramus_set_error_callback(NULL, NULL);
  CHECK(ramus_object_set_time_step(object, -1) == RAMUS_INVALID_ARGUMENT && errors_seen == 2);
}

/* Frames, velocities and coordinates per domain, in the world through the placement. */
static void check_motion(const ramus_model* model, ramus_object* object) {
  const double up[3] = {0, 0, 1}, pull[3] = {0, 0, 20}, origin0[3] = {0, 0, 0};
  double R[9], x[3], R_placed[9], x_placed[3], v[3], w[3], g[3], *q, *qdot;
  ramus_domain_info info;
  const int last = ramus_model_num_domains(model) - 1;
  int k, c;
  CHECK(ramus_model_domain_info(model, last, &info) == RAMUS_OK);
  CHECK(ramus_object_apply_force(object, ramus_model_num_vertices(model) - 1, pull) == RAMUS_OK);
  for (k = 0; k < 20; ++k) CHECK(ramus_object_step(object) == RAMUS_OK);
  CHECK(ramus_object_domain_frame(object, last, R, x) == RAMUS_OK);
  /* Placed a quarter turn about z and 1 m up: the frame turns and moves with it. */
  CHECK(ramus_object_set_placement(object, quarter, up) == RAMUS_OK);
  CHECK(ramus_object_domain_frame(object, last, R_placed, x_placed) == RAMUS_OK);
  CHECK(fabs(x_placed[0] + x[1]) < 1e-12 && fabs(x_placed[1] - x[0]) < 1e-12 &&
        fabs(x_placed[2] - x[2] - 1) < 1e-12);
  for (c = 0; c < 3; ++c) CHECK(fabs(R_placed[c] + R[3 + c]) < 1e-12);
  /* Gravity stays in the world. */
  CHECK(ramus_object_get_gravity(object, g) == RAMUS_OK && fabs(g[2] + 9.81) < 1e-12);
  CHECK(ramus_object_domain_velocity(object, last, v, w) == RAMUS_OK);
  CHECK(isfinite(v[0]) && isfinite(w[2]));
  CHECK(ramus_object_domain_velocity(object, 0, v, w) == RAMUS_OK);
  CHECK(v[0] == 0 && v[1] == 0 && v[2] == 0); /* an anchored root */
  q = malloc(sizeof(double) * (size_t)(info.num_coordinates + 1));
  qdot = malloc(sizeof(double) * (size_t)(info.num_coordinates + 1));
  CHECK(ramus_object_domain_coordinates(object, last, q, qdot, (size_t)info.num_coordinates) ==
        RAMUS_OK);
  CHECK(info.num_coordinates == 0 || q[0] != 0);
  CHECK(ramus_object_domain_coordinates(object, last, q, NULL, (size_t)info.num_coordinates + 1) ==
        RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_domain_frame(object, last + 1, R, x) == RAMUS_INVALID_ARGUMENT);
  free(q);
  free(qdot);
  CHECK(ramus_object_set_placement(object, identity, origin0) == RAMUS_OK);
  /* A moving anchor: the root reaches each placement given, and the object sways (its last
   * domain's q changes against a still object's); a teleport brings it to rest. */
  {
    ramus_object* still = ramus_object_create(model, NULL);
    double moved[3] = {0, 0, 0}, x0[3], x_rest[3], R0[9], q_still[64], q_moved[64];
    const size_t r = (size_t)info.num_coordinates;
    CHECK(ramus_object_domain_frame(object, 0, R0, x_rest) == RAMUS_OK);
    CHECK(ramus_object_reset(object) == RAMUS_OK && ramus_object_clear_forces(object) == RAMUS_OK);
    for (k = 1; k <= 20; ++k) {
      moved[0] = 0.002 * k * k;
      CHECK(ramus_object_move_placement(object, quarter, moved, 0.01) == RAMUS_OK);
      CHECK(ramus_object_step(object) == RAMUS_OK);
      CHECK(ramus_object_step(still) == RAMUS_OK);
    }
    CHECK(ramus_object_domain_frame(object, 0, R, x0) == RAMUS_OK);
    /* (the quarter turn maps the rest origin (x, y, z) to (-y, x, z)) */
    CHECK(fabs(x0[0] - (-x_rest[1] + moved[0])) < 1e-9 && fabs(x0[1] - x_rest[0]) < 1e-9);
    CHECK(r <= 64);
    CHECK(ramus_object_domain_coordinates(object, last, q_moved, NULL, r) == RAMUS_OK);
    CHECK(ramus_object_domain_coordinates(still, last, q_still, NULL, r) == RAMUS_OK);
    CHECK(r == 0 || fabs(q_moved[0] - q_still[0]) > 1e-6);
    CHECK(ramus_object_move_placement(object, quarter, moved, 0) == RAMUS_INVALID_ARGUMENT);
    CHECK(ramus_object_set_placement(object, identity, origin0) == RAMUS_OK);
    CHECK(ramus_object_domain_frame(object, 0, R, x0) == RAMUS_OK);
    CHECK(fabs(x0[0] - x_rest[0]) < 1e-12 && fabs(x0[1] - x_rest[1]) < 1e-12);
    ramus_object_free(still);
  }
  /* Threads. */
  CHECK(ramus_object_set_threads(object, 0) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_set_threads(object, 2) == RAMUS_OK);
  CHECK(ramus_object_threads(object) >= 1 && ramus_object_threads(NULL) == 0);
}

/* Replays after a restore, copies, reset, and refused snapshots. */
static void check_states(const ramus_model* model, const ramus_model* other) {
  const int V = ramus_model_num_vertices(model);
  const size_t n = 3 * (size_t)V;
  const double pull[3] = {0, 5, 20};
  ramus_object *a = ramus_object_create(model, NULL), *b = ramus_object_create(model, NULL),
               *fresh = ramus_object_create(model, NULL);
  size_t size = 0, written = 0;
  unsigned char* blob;
  double *expected = malloc(sizeof(double) * n), *got = malloc(sizeof(double) * n);
  double time_before;
  int k;
  CHECK(ramus_object_apply_force(a, V - 1, pull) == RAMUS_OK);
  /* (its size grows with the forces and colliders it holds) */
  size = ramus_object_state_size(a, RAMUS_STATE_ALL);
  CHECK(size > 48 && ramus_object_state_size(a, 128) == 0 && ramus_object_state_size(NULL, 1) == 0);
  blob = malloc(size);
  for (k = 0; k < 15; ++k) CHECK(ramus_object_step(a) == RAMUS_OK);
  CHECK(ramus_object_save_state(a, RAMUS_STATE_ALL, blob, size - 1, &written) ==
        RAMUS_INVALID_ARGUMENT);
  CHECK(written == 0 && strstr(ramus_last_error(), "bytes") != NULL);
  CHECK(ramus_object_save_state(a, RAMUS_STATE_ALL, blob, size, &written) == RAMUS_OK);
  CHECK(written == size);
  for (k = 0; k < 15; ++k) CHECK(ramus_object_step(a) == RAMUS_OK);
  CHECK(ramus_object_vertex_positions(a, expected, n) == RAMUS_OK);
  /* Restored into another object: the same 15 steps to the last bit; then copied. */
  CHECK(ramus_object_restore_state(b, blob, size) == RAMUS_OK);
  CHECK(ramus_object_copy_state(fresh, b, RAMUS_STATE_ALL) == RAMUS_OK);
  for (k = 0; k < 15; ++k) CHECK(ramus_object_step(b) == RAMUS_OK);
  CHECK(ramus_object_vertex_positions(b, got, n) == RAMUS_OK);
  CHECK(memcmp(got, expected, sizeof(double) * n) == 0);
  for (k = 0; k < 15; ++k) CHECK(ramus_object_step(fresh) == RAMUS_OK);
  CHECK(ramus_object_vertex_positions(fresh, got, n) == RAMUS_OK);
  CHECK(memcmp(got, expected, sizeof(double) * n) == 0);
  /* Refused: corrupt, truncated, NULL, another tree; the object keeps its time. */
  time_before = ramus_object_time(b);
  blob[size / 2] ^= 1;
  CHECK(ramus_object_restore_state(b, blob, size) == RAMUS_FILE_ERROR);
  CHECK(strstr(ramus_last_error(), "checksum") != NULL);
  blob[size / 2] ^= 1;
  CHECK(ramus_object_restore_state(b, blob, size - 1) == RAMUS_FILE_ERROR);
  CHECK(ramus_object_restore_state(b, NULL, size) == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_object_time(b) == time_before);
  if (other) {
    ramus_object* foreign = ramus_object_create(other, NULL);
    CHECK(ramus_object_restore_state(foreign, blob, size) == RAMUS_INVALID_ARGUMENT);
    CHECK(strstr(ramus_last_error(), "another model") != NULL);
    CHECK(ramus_object_copy_state(foreign, a, RAMUS_STATE_ALL) == RAMUS_INVALID_ARGUMENT);
    ramus_object_free(foreign);
  }
  /* Reset: at rest at time 0, as a new object. */
  CHECK(ramus_object_reset(a) == RAMUS_OK);
  CHECK(ramus_object_time(a) == 0);
  CHECK(ramus_object_vertex_positions(a, got, n) == RAMUS_OK);
  {
    ramus_object* rest = ramus_object_create(model, NULL);
    CHECK(ramus_object_vertex_positions(rest, expected, n) == RAMUS_OK);
    CHECK(memcmp(got, expected, sizeof(double) * n) == 0);
    ramus_object_free(rest);
  }
  CHECK(ramus_object_reset(NULL) == RAMUS_INVALID_ARGUMENT);
  free(blob);
  free(expected);
  free(got);
  ramus_object_free(a);
  ramus_object_free(b);
  ramus_object_free(fresh);
}

/* A model from its file's bytes in memory: the same model as from the file (the same steps to
 * the last bit); corrupt or truncated bytes refused with the name given. */
static void check_memory_load(const char* path) {
  FILE* file = fopen(path, "rb");
  long size = 0;
  unsigned char* bytes;
  ramus_model *from_file, *from_memory;
  ramus_object *a, *b;
  ramus_status status = RAMUS_OK;
  double *x, *y;
  int k, V;
  CHECK(file != NULL);
  if (!file) return;
  fseek(file, 0, SEEK_END);
  size = ftell(file);
  fseek(file, 0, SEEK_SET);
  bytes = malloc((size_t)size);
  CHECK(fread(bytes, 1, (size_t)size, file) == (size_t)size);
  fclose(file);
  from_memory =
      ramus_model_load_memory(bytes, (size_t)size, "archive/beam.h5", NULL, 0, 0, &status);
  CHECK(from_memory != NULL && status == RAMUS_OK);
  from_file = ramus_model_load(path, NULL);
  if (from_memory && from_file) {
    V = ramus_model_num_vertices(from_file);
    CHECK(ramus_model_num_vertices(from_memory) == V);
    a = ramus_object_create(from_file, NULL);
    b = ramus_object_create(from_memory, NULL);
    for (k = 0; k < 10; ++k)
      CHECK(ramus_object_step(a) == RAMUS_OK && ramus_object_step(b) == RAMUS_OK);
    x = malloc(sizeof(double) * 3 * (size_t)V);
    y = malloc(sizeof(double) * 3 * (size_t)V);
    CHECK(ramus_object_vertex_positions(a, x, 3 * (size_t)V) == RAMUS_OK);
    CHECK(ramus_object_vertex_positions(b, y, 3 * (size_t)V) == RAMUS_OK);
    CHECK(memcmp(x, y, sizeof(double) * 3 * (size_t)V) == 0);
    free(x);
    free(y);
    ramus_object_free(a);
    ramus_object_free(b);
  }
  ramus_model_free(from_file);
  ramus_model_free(from_memory);
  /* A changed byte, a truncation, NULL bytes, signed-only without keys. */
  bytes[size / 2] ^= 0x40;
  CHECK(ramus_model_load_memory(bytes, (size_t)size, "archive/beam.h5", NULL, 0, 0, &status) ==
            NULL &&
        status == RAMUS_FILE_ERROR);
  CHECK(strstr(ramus_last_error(), "archive/beam.h5") != NULL &&
        strstr(ramus_last_error(), "checksum") != NULL);
  bytes[size / 2] ^= 0x40;
  CHECK(ramus_model_load_memory(bytes, (size_t)size - 100, NULL, NULL, 0, 0, &status) == NULL &&
        status == RAMUS_FILE_ERROR);
  CHECK(strstr(ramus_last_error(), "truncated") != NULL);
  CHECK(ramus_model_load_memory(NULL, 10, NULL, NULL, 0, 0, &status) == NULL &&
        status == RAMUS_INVALID_ARGUMENT);
  CHECK(ramus_model_load_memory(bytes, (size_t)size, NULL, NULL, 0, 1, &status) == NULL &&
        status == RAMUS_INVALID_ARGUMENT);
  free(bytes);
}

/* A job system for the batch: every index, in reverse order, on the calling thread. */
static void reverse_jobs(void* job_system, int count, void (*task)(void*, int), void* context) {
  int k;
  ++*(int*)job_system;
  for (k = count; k-- > 0;) task(context, k);
}

/* Many objects in one call equal their lone steps to the last bit; statuses and failures. */
static void check_batch(const ramus_model* model) {
  enum { N = 3 };
  ramus_object *batch[N], *lone[N];
  ramus_status statuses[N];
  const int V = ramus_model_num_vertices(model);
  const double pull[3] = {0, 0, 4};
  double *x = malloc(sizeof(double) * 3 * (size_t)V), *y = malloc(sizeof(double) * 3 * (size_t)V);
  int k, step, calls = 0;
  for (k = 0; k < N; ++k) {
    batch[k] = ramus_object_create(model, NULL);
    lone[k] = ramus_object_create(model, NULL);
    CHECK(ramus_object_apply_force(batch[k], V - 1 - k, pull) == RAMUS_OK);
    CHECK(ramus_object_apply_force(lone[k], V - 1 - k, pull) == RAMUS_OK);
  }
  for (step = 0; step < 10; ++step) {
    CHECK(ramus_step_objects(batch, N, 2, statuses) == 0);
    CHECK(statuses[0] == RAMUS_OK && statuses[N - 1] == RAMUS_OK);
    CHECK(ramus_step_objects_on(batch, N, reverse_jobs, &calls, NULL) == 0);
    for (k = 0; k < N; ++k)
      CHECK(ramus_object_step(lone[k]) == RAMUS_OK && ramus_object_step(lone[k]) == RAMUS_OK);
  }
  CHECK(calls == 10);
  for (k = 0; k < N; ++k) {
    CHECK(ramus_object_vertex_positions(batch[k], x, 3 * (size_t)V) == RAMUS_OK);
    CHECK(ramus_object_vertex_positions(lone[k], y, 3 * (size_t)V) == RAMUS_OK);
    CHECK(memcmp(x, y, sizeof(double) * 3 * (size_t)V) == 0);
  }
  /* A NULL object fails alone; the others step. */
  ramus_object_free(batch[1]);
  batch[1] = NULL;
  CHECK(ramus_step_objects(batch, N, 1, statuses) == 1);
  CHECK(statuses[1] == RAMUS_INVALID_ARGUMENT && statuses[0] == RAMUS_OK);
  CHECK(strstr(ramus_last_error(), "1 of 3 failed (first: object 1") != NULL);
  CHECK(ramus_step_objects(NULL, 2, 1, NULL) == 2);
  for (k = 0; k < N; ++k) {
    ramus_object_free(batch[k]);
    ramus_object_free(lone[k]);
  }
  free(x);
  free(y);
}

int main(int argc, char** argv) {
  ramus_status status = RAMUS_OK;
  ramus_model *model, *other = NULL;
  ramus_object* object;
  if (argc < 2) {
    fprintf(stderr, "usage: test_c_api_state <model.h5> [<a model of another tree>]\n");
    return 2;
  }
  model = ramus_model_load(argv[1], &status);
  CHECK(model != NULL && status == RAMUS_OK);
  if (!model) return 1;
  if (argc > 2) other = ramus_model_load(argv[2], NULL);
  check_tree(model);
  object = ramus_object_create(model, NULL);
  check_errors(object);
  check_motion(model, object);
  ramus_object_free(object);
  check_states(model, other);
  check_memory_load(argv[1]);
  {
    ramus_model* again = ramus_model_load(argv[1], NULL);
    check_batch(again);
    ramus_model_free(again);
  }
  ramus_model_free(model);
  ramus_model_free(other);
  if (failures)
    fprintf(stderr, "%d checks failed\n", failures);
  else
    printf("C API states: all checks passed\n");
  return failures ? 1 : 0;
}
