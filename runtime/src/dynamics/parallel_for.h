// f(0) ... f(n - 1) on up to `threads` threads (runtime internals): OpenMP's parallel for when
// threads > 1, a plain loop otherwise (no OpenMP region at all: even a serial one allocates).
// Each index must touch only its own data; which thread runs it then does not change the result.
#pragma once

namespace ramus {

template <class Function>
void parallel_for(int n, int threads, const Function& f) noexcept {
  if (threads > 1 && n > 1) {
#if defined(_OPENMP)
#pragma omp parallel for schedule(guided) num_threads(threads)
    for (int k = 0; k < n; ++k) f(k);
    return;
#endif
  }
  for (int k = 0; k < n; ++k) f(k);
}

}  // namespace ramus
