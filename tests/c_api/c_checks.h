/* The C interface tests' check (tests only, C99): a failed condition is printed with its line and
 * the last error, and counted in `failures` (the program's exit status). */
#ifndef RAMUS_TEST_C_CHECKS_H
#define RAMUS_TEST_C_CHECKS_H

#include <stdio.h>

#include "ramus/ramus.h"

static int failures = 0;

#define CHECK(condition)                                                                \
  do {                                                                                  \
    if (!(condition)) {                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__, __LINE__, \
              #condition, ramus_last_error());                                          \
      ++failures;                                                                       \
    }                                                                                   \
  } while (0)

#endif /* RAMUS_TEST_C_CHECKS_H */
