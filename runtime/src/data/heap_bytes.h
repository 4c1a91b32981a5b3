// Bytes the heap is asked for a dynamic Eigen object (runtime internals; model.cpp's and
// step.cpp's per-domain memory counts): its scalars, plus the padding Eigen's aligned allocation
// adds to each block where malloc does not align to EIGEN_DEFAULT_ALIGN_BYTES itself (64 B a
// block under the runtime's EIGEN_MAX_ALIGN_BYTES = 64).
#pragma once

#include <Eigen/Core>

#include <cstddef>

namespace ramus {

template <class Derived>
std::size_t eigen_heap_bytes(const Eigen::PlainObjectBase<Derived>& object) {
  const auto n = static_cast<std::size_t>(object.size());
  if (n == 0) return 0;
  return n * sizeof(typename Derived::Scalar) +
         (EIGEN_MALLOC_ALREADY_ALIGNED ? 0 : static_cast<std::size_t>(EIGEN_DEFAULT_ALIGN_BYTES));
}

}  // namespace ramus
