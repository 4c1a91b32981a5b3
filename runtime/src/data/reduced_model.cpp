#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

bool has_system_force(const ReducedPart& domain) {
  const Eigen::Index r = domain.basis.cols();
  const SystemForceIntegrals& w = domain.system_force;
  return w.w1.rows() == 3 && w.w1.cols() == r && w.w2.rows() == 3 && w.w2.cols() == r &&
         w.w3.size() == r && w.w4.rows() == r && w.w4.cols() == r && w.w5.rows() == 3 &&
         w.w5.cols() == 3 * r && w.w6.rows() == r && w.w6.cols() == 3 * r && w.w7.rows() == 3 * r &&
         w.w7.cols() == 3 * r;
}

}  // namespace ramus
