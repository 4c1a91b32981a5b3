// sin of four doubles in one call (runtime internals), for WindField: a domain's four eddies in
// one call instead of four. glibc's libmvec vector sine where it is linked (the x86-64 vector
// function ABI: AVX2 four at once, else SSE two at a time; within 4 ulp of the correctly rounded
// sine), std::sin otherwise.
#pragma once

#include <Eigen/Core>

namespace ramus {

/// sin(x) per entry (radians).
Eigen::Array4d sine4(const Eigen::Array4d& x) noexcept;

}  // namespace ramus
