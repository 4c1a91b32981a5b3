// The descendants' contacts in an ancestor's solve (runtime/src/contact/subtree_contact.h): the
// barrier of candidates riding on the ancestor's children's interface centroids, its gradient
// against finite differences of its energy, its Gauss-Newton Hessian against finite differences
// of the gradient where it is exact (a half-space: positions affine in q, phi linear in them).
#include <catch2/catch.hpp>

#include <Eigen/Eigenvalues>

#include "contact/subtree_contact.h"
#include "ramus/runtime/contact/contact_response.h"
#include "support/collider_points.h"
#include "support/finite_differences.h"
#include "support/random_models.h"

namespace ramus {
namespace {

struct SubtreeSetup {
  std::shared_ptr<const Model> model;
  std::vector<SubtreeContactLink> links;
  std::vector<ContactCandidate> candidates;
  std::vector<int> counts, starts;
  Eigen::Matrix3Xd start_origins;
  std::vector<StepCollider> colliders;
  SubtreeContact contact;
  Eigen::VectorXd q;
};

// The root of the random three-level tree with its descendants' candidates (leaf on child 1;
// branch and the leaf on it, both on child 2, listed apart so that two runs project on child 2)
// near `collider` at q0, between delta/20 and 0.9 delta from it.
SubtreeSetup make_setup(ColliderShape shape, const Eigen::Vector4d& size) {
  SubtreeSetup s;
  s.model = compile_model(test::make_model(5));
  const Model& model = *s.model;
  test::Random random(11);
  const int r = model.domains[0].r;
  s.q = random.matrix(r, 1, 0.05);
  SubtreeContact& c = s.contact;
  c.model = s.model.get();
  c.rotation = test::random_rotation(random);
  c.origin = Eigen::Vector3d(0.2, 0.1, -0.3);
  c.stiffness = 1e3;
  c.distance = 0.05;
  StepCollider step;
  step.used = true;
  step.collider.shape = shape;
  step.collider.size = size;
  step.collider.pose.rotation = test::random_rotation(random);
  step.collider.pose.translation = Eigen::Vector3d(0.1, 0.4, -0.2);
  step.end = step.collider.pose;
  s.colliders = {step};
  // Each child's centroid at q: the start origins make the shift there zero.
  const int n = model.num_domains();
  s.start_origins = Eigen::Matrix3Xd::Zero(3, n);
  for (int child : {1, 2}) {
    Eigen::Vector3d local = model.domains[static_cast<std::size_t>(child)].interface.centroid;
    const InterfaceBases bases = model.interface_bases_of(child);
    for (int l = 0; l < r; ++l) local += s.q(l) * centroid_column(bases, l);
    s.start_origins.col(child) = c.origin + c.rotation * local;
  }
  // Candidates: points along random directions from the collider's surface (the level set's
  // gradient walks them out to the wanted distance).
  s.counts.assign(static_cast<std::size_t>(n), 0);
  s.candidates.resize(3 * static_cast<std::size_t>(n));  // (three candidates' room a domain)
  s.starts.resize(static_cast<std::size_t>(n));
  for (int d = 0; d < n; ++d) s.starts[static_cast<std::size_t>(d)] = 3 * d;
  for (int d : {1, 2, 3}) {
    const int count = 3;
    for (int k = 0; k < count; ++k) {
      ContactCandidate& candidate = s.candidates[static_cast<std::size_t>(3 * d + k)];
      candidate.sample = k;
      candidate.collider = 0;
      candidate.start = test::point_near_collider(step, c.distance, random);
    }
    s.counts[static_cast<std::size_t>(d)] = count;
  }
  s.links = {{3, 2}, {1, 1}, {2, 2}};
  c.links = s.links.data();
  c.count = static_cast<int>(s.links.size());
  c.candidates = s.candidates.data();
  c.candidate_counts = s.counts.data();
  c.candidate_starts = s.starts.data();
  c.start_origins = &s.start_origins;
  c.colliders = s.colliders.data();
  return s;
}

Eigen::VectorXd gradient_at(const SubtreeContact& c, const Eigen::VectorXd& q) {
  Eigen::VectorXd g = Eigen::VectorXd::Zero(q.size());
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(q.size(), q.size());
  c.add_derivatives(q, g, H);
  return g;
}

}  // namespace

TEST_CASE("the subtree contact's gradient is that of its energy, its value returned with it",
          "[contact][fd]") {
  for (const auto& [shape, size] :
       {std::pair{ColliderShape::kSphere, Eigen::Vector4d(0.5, 0, 0, 0)},
        std::pair{ColliderShape::kCapsule, Eigen::Vector4d(0.3, 0.4, 0, 0)},
        std::pair{ColliderShape::kRoundedBox, Eigen::Vector4d(0.4, 0.5, 0.3, 0.1)}}) {
    SubtreeSetup s = make_setup(shape, size);
    const SubtreeContact& c = s.contact;
    const int r = static_cast<int>(s.q.size());
    Eigen::VectorXd g = Eigen::VectorXd::Zero(r);
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(r, r);
    const double energy = c.add_derivatives(s.q, g, H);
    CHECK(energy > 0);
    CHECK(energy == Approx(c.energy(s.q)).epsilon(1e-12));
    const Eigen::VectorXd g_fd = test::finite_gradient(
        s.q, [&](const Eigen::VectorXd& q) { return c.energy(q); }, 1e-7, test::Stencil::kCentral4);
    CHECK((g - g_fd).norm() <= 1e-6 * g.norm());
    // Gauss-Newton: symmetric positive semi-definite.
    CHECK((H - H.transpose()).norm() <= 1e-12 * H.norm());
    CHECK(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(H).eigenvalues().minCoeff() >=
          -1e-10 * H.norm());
  }
}

TEST_CASE("against a half-space the subtree contact's Gauss-Newton Hessian is exact",
          "[contact][fd]") {
  SubtreeSetup s = make_setup(ColliderShape::kHalfSpace, Eigen::Vector4d::Zero());
  const int r = static_cast<int>(s.q.size());
  Eigen::VectorXd g = Eigen::VectorXd::Zero(r);
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(r, r);
  s.contact.add_derivatives(s.q, g, H);
  const Eigen::MatrixXd H_fd = test::finite_jacobian(
      s.q, [&](const Eigen::VectorXd& q) { return gradient_at(s.contact, q); }, 1e-7,
      test::Stencil::kCentral4);
  CHECK(H.norm() > 0);
  CHECK((H - H_fd).norm() <= 1e-6 * H.norm());
}

}  // namespace ramus
