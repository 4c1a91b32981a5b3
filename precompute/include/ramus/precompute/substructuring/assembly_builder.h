// An assembly of parts (substructuring paper §5: the oak's branches and leaves): each distinct
// part mesh is reduced once with its base held, then placed any number of times (rotation,
// translation, uniform scale); a placed part's base is embedded in its parent's tets wherever
// they are (meshes need not conform) and the interface data of Eq. 1-4 come from the parent
// part's basis at those points.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "ramus/precompute/fem/material.h"
#include "ramus/precompute/mesh/tet_mesh.h"
#include "ramus/precompute/mesh/tree_generator.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/reduction/reduced_domain_builder.h"
#include "ramus/runtime/model/reduced_model.h"

namespace ramus {

/// One distinct part: its mesh in its own coordinates, per-tet materials, base vertices (held
/// for its modes: the anchors of the root part, the attachment of the others; none: a free
/// body) and how to reduce it (r = 0: a rigid part).
struct AssemblyPart {
  std::string name;
  TetMesh mesh;
  std::vector<Material> materials;  ///< #T
  std::vector<int> base;            ///< sorted vertex indices
  ReductionSpec reduction;
};

/// One placement of a part: x_world = rotation (scale X_mesh) + translation; parents first
/// (instance 0 is the root, parent -1).
struct AssemblyInstance {
  std::string name;
  int part = 0;
  int parent = -1;
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d translation = Eigen::Vector3d::Zero();
  double scale = 1;
};

/// Builds the model: the parts some instance places, in the order of their first placement,
/// each reduced once (on up to `threads` threads,
/// 0: all cores) with its base held, its rest positions recentred on the area-weighted centroid
/// of its base (a free part: on its centre of mass), W1..W7 in that frame; domain k places
/// instances[k]. A child's base vertices are embedded in its parent instance's tets (the tet
/// that holds each, else the nearest: a base vertex farther than `attachment_tolerance` (m)
/// from its parent is an error naming both instances and the distance; nearer, the child is
/// snapped onto the parent, moved by at most that distance); its frame is the interface frame
/// (origin at the embedded base centroid, axes the placement's rotation) and its interface data
/// come from compute_embedded_interface on the parent's scaled basis. Every instance has its own
/// global vertices; subtree mass, centre and inertia from the parts' exact moments, scaled.
/// report gets "<part>: <stage>" per part and stage, then "placement". Throws OptionError /
/// MeshError / NumericalError naming the part or instance.
ReducedModel build_assembly_model(const std::vector<AssemblyPart>& parts,
                                  const std::vector<AssemblyInstance>& instances,
                                  double attachment_tolerance, int threads = 0,
                                  const StageReporter& report = {});

/// Parts and placements, as build_assembly_model takes them.
struct Assembly {
  std::vector<AssemblyPart> parts;
  std::vector<AssemblyInstance> instances;
};

/// The assembly of a generated tree (tree_generator.h): each part with its base (its vertices of
/// flag 1), its material (Poisson ratio 0.35) and r (r / 2 linear modes); the placements in order.
Assembly tree_assembly(const Tree& tree);

}  // namespace ramus
