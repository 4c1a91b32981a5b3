#include "vector_sine.h"

#include <cmath>

#if defined(RAMUS_HAVE_LIBMVEC) && defined(__x86_64__)
#include <immintrin.h>
#if defined(__AVX2__)
extern "C" __m256d _ZGVdN4v_sin(__m256d);  // libmvec's AVX2 sin, 4 lanes
#else
extern "C" __m128d _ZGVbN2v_sin(__m128d);  // libmvec's SSE sin, 2 lanes
#endif
#endif

namespace ramus {

Eigen::Array4d sine4(const Eigen::Array4d& x) noexcept {
  alignas(32) double out[4];
#if defined(RAMUS_HAVE_LIBMVEC) && defined(__x86_64__) && defined(__AVX2__)
  _mm256_store_pd(out, _ZGVdN4v_sin(_mm256_loadu_pd(x.data())));
#elif defined(RAMUS_HAVE_LIBMVEC) && defined(__x86_64__)
  _mm_store_pd(out, _ZGVbN2v_sin(_mm_loadu_pd(x.data())));
  _mm_store_pd(out + 2, _ZGVbN2v_sin(_mm_loadu_pd(x.data() + 2)));
#else
  for (int k = 0; k < 4; ++k) out[k] = std::sin(x(k));
#endif
  return Eigen::Array4d(out[0], out[1], out[2], out[3]);
}

}  // namespace ramus
