// The contact samples of a part (runtime contact, docs/CONTACT.md "Reduced contact"): surface
// vertices spread evenly by farthest-point sampling, each weighted by the surface area nearest to
// it, with the rows of the basis there. Chosen once at precompute, stored in the model file and
// shared by every domain that places the part (scaled with it).
#pragma once

#include <Eigen/Core>

#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// Samples a part gets unless its spec's reduction block says otherwise ("contact_samples").
constexpr int kDefaultContactSamples = 64;
/// The most samples a part may have.
constexpr int kMaxContactSamples = 100000;

/// `count` surface vertices of a mesh (rest_positions #V by 3, surface_triangles #F by 3) other
/// than the `excluded` ones, spread evenly: the first the farthest from the surface's centroid,
/// each next the farthest from those chosen (ties to the lower index); all of them when there are
/// no more than `count`. weights (m²): the surface area nearest each sample (a third of each
/// triangle to its corners, excluded vertices' too), summing to the surface's area.
struct ContactSampleChoice {
  Eigen::VectorXi vertices;  ///< S, ascending
  Eigen::VectorXd weights;   ///< S (m²)
};
ContactSampleChoice choose_contact_samples(const Eigen::MatrixX3d& rest_positions,
                                           const Eigen::MatrixX3i& surface_triangles, int count,
                                           const Eigen::VectorXi& excluded = Eigen::VectorXi());

/// Sets part.contact (its vertices, weights and the basis rows there) from `count` samples of its
/// surface (choose_contact_samples); none for a part without a surface. (Its fixed vertices are
/// sampled too: a leaf's base samples, which only its frame moves, carry the contact to its
/// parent's solve; leaving them out let a capsule sink 4 cm into a small tree's leaves.)
void attach_contact_samples(ReducedPart& part, int count);

}  // namespace ramus
