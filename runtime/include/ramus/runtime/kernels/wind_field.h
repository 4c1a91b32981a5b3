// The wind's velocity field (docs/WIND.md), evaluated from its settings (WindSettings,
// settings_list.h): a gusty mean and four frozen eddies carried by it. A kernel of the step
// (line 3, the drag on each domain's surface), allocation-free.
#pragma once

#include <Eigen/Core>

#include "ramus/runtime/data/runtime_settings.h"

namespace ramus {

/// A WindSettings' field with its eddies drawn once (cheap to evaluate at many points).
class WindField {
 public:
  explicit WindField(const WindSettings& wind) noexcept;
  /// The wind velocity (m/s, world) at world point x and time t.
  Eigen::Vector3d velocity(const Eigen::Vector3d& x, double t) const noexcept;
  /// What the field is at one time t everywhere: the gusty mean velocity (m/s) and the air's
  /// drift since t = 0 (m); velocity(x, at(t)) = velocity(x, t), the gusts computed once.
  struct Instant {
    Eigen::Vector3d mean = Eigen::Vector3d::Zero(), drift = Eigen::Vector3d::Zero();
  };
  Instant at(double t) const noexcept;
  Eigen::Vector3d velocity(const Eigen::Vector3d& x, const Instant& instant) const noexcept;

  /// The eddies (docs/WIND.md): wave vectors κ_k (1/m, world) and unit directions e_k (columns,
  /// 3 by 4), phases φ_k (rad); eddy k adds turbulence/2 sin(κ_k·(x - drift) + φ_k) e_k.
  const Eigen::Matrix<double, 3, 4>& wave_vectors() const { return wave_vectors_; }
  const Eigen::Matrix<double, 3, 4>& directions() const { return directions_; }
  const Eigen::Vector4d& phases() const { return phases_; }
  const WindSettings& settings() const { return wind_; }

 private:
  WindSettings wind_;
  Eigen::Matrix<double, 3, 4> wave_vectors_, directions_;  ///< κ_k, e_k
  Eigen::Vector4d phases_;
};

/// WindField(wind).velocity(x, t).
Eigen::Vector3d wind_velocity(const WindSettings& wind, const Eigen::Vector3d& x,
                              double t) noexcept;

}  // namespace ramus
