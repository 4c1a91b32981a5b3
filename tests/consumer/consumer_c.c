/* A C program built against an installed Ramus through pkg-config (ramus-runtime.pc). */
#include <stdio.h>

#include "ramus/ramus.h"

int main(int argc, char** argv) {
  ramus_status status;
  ramus_model* model;
  ramus_object* object;
  int k;
  if (argc != 2) return 2;
  model = ramus_model_load(argv[1], &status);
  object = ramus_object_create(model, &status);
  if (!object) {
    fprintf(stderr, "%s\n", ramus_last_error());
    return 1;
  }
  for (k = 0; k < 100; ++k)
    if (ramus_object_step(object) != RAMUS_OK) return 1;
  printf("consumer_c: ramus %s, %d vertices, t = %.3f s\n", ramus_version(),
         ramus_model_num_vertices(model), ramus_object_time(object));
  ramus_object_free(object);
  ramus_model_free(model);
  return 0;
}
