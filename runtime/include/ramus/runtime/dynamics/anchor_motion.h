// A moving anchor: an anchored object's root frame F_0 driven by the game as a kinematic body (a
// plant on a cart, a branch in a character's hand, Jolt's MoveKinematic). Every domain feels it
// through the frame terms of the substructuring paper (Eq. 10-14: the root's system force from
// F_0's acceleration, angular velocity and angular acceleration; each child's frame carried by
// its parent's). A step carries the anchor semi-implicitly, v += h a, ω += h α, then x += h v,
// R = exp(h ω) R (world axes); anchor_motion_reaching picks a and α so that one step lands on a
// target pose, which differences the velocity and acceleration from the poses the game gives.
#pragma once

#include <Eigen/Core>

#include "ramus/runtime/contact/level_set_shapes.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"

namespace ramus {

/// F_0's placement and motion in the model's axes (the world of a Simulator).
struct AnchorMotion {
  RigidPose pose;  ///< F_0's axes and origin (m); at rest: domain 0's rest rotation and origin
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();              ///< of its origin (m/s)
  Eigen::Vector3d angular_velocity = Eigen::Vector3d::Zero();      ///< rad/s
  Eigen::Vector3d acceleration = Eigen::Vector3d::Zero();          ///< of its origin (m/s²)
  Eigen::Vector3d angular_acceleration = Eigen::Vector3d::Zero();  ///< rad/s²
};

/// The anchor of `state` now (from its root frame).
AnchorMotion anchor_motion(const Model& model, const State& state) noexcept;

/// nullptr when `motion` can drive `model`'s root; otherwise what is wrong ("the root is free
/// (a free root moves by its own dynamics)", "pose: not a rotation", "not finite", "an anchored
/// single domain without system-force integrals moves by translation only").
const char* anchor_motion_problem(const Model& model, const AnchorMotion& motion) noexcept;

/// Sets the root frame of `state` to `motion` (unchecked: anchor_motion_problem first). Call
/// initialize() (step.h) after a jump in pose to bring the children's frames along.
void set_anchor_motion(const Model& model, State& state, const AnchorMotion& motion) noexcept;

/// The anchor's motion now with the accelerations that carry it to `target` in one step of
/// `seconds` (> 0): a = (Δx / h - v) / h, α = (log(R_target Rᵀ) / h - ω) / h.
AnchorMotion anchor_motion_reaching(const Model& model, const State& state, const RigidPose& target,
                                    double seconds) noexcept;

/// True when an anchored root moves (any of v, ω, a, α non-zero): the root then feels its
/// frame's system force and the step carries the anchor.
bool anchor_moves(const Model& model, const State& state) noexcept;

/// Carries a moving anchor through one step of `seconds` (what step() does first).
void advance_anchor(const Model& model, State& state, double seconds) noexcept;

}  // namespace ramus
