// The render mesh rebuilt in the vertex shader (docs/RENDERING.md, "On the GPU"): each piece's
// tables uploaded once as texture buffers, and per frame only every domain's q and transform
// (ramus_object_render_transforms' 16 floats); one instanced draw per piece.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "ramus/runtime/model/model.h"
#include "ramus/runtime/simulator.h"

namespace ramus::viewer {

class GpuSkinning {
 public:
  /// Compiles its program and uploads `model`'s render pieces (an OpenGL 3.3 context is current).
  explicit GpuSkinning(const Model& model);
  ~GpuSkinning();
  GpuSkinning(const GpuSkinning&) = delete;
  GpuSkinning& operator=(const GpuSkinning&) = delete;

  /// This frame's q and transforms to the GPU (allocation-free).
  void update(const Simulator& simulator);
  /// Draws every piece lit from `light`, coloured per domain or in one colour.
  void draw(const Eigen::Matrix4f& view_projection, const Eigen::Vector3f& light,
            bool color_domains) const;

 private:
  // A texture buffer: its buffer object and texture.
  struct Table {
    unsigned buffer = 0, texture = 0;
  };
  struct Piece {
    Table rest, rest_normals, position_basis, normal_basis, domains;
    unsigned array = 0, indices = 0;
    int vertices = 0, triangles = 0, instances = 0, r = 0, first_coordinate = 0;
  };
  unsigned program_ = 0;
  std::vector<Piece> pieces_;
  Table coordinates_, transforms_;
  std::vector<float> q_, frames_;  // this frame's, as uploaded
};

}  // namespace ramus::viewer
