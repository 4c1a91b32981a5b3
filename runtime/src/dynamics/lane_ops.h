// The lane groups' shared helpers (runtime internals): values of up to eight domains gathered into
// the lanes of a Lane (or four of a Half) and scattered back, and which lanes stand for which
// domains.
#pragma once

#include <Eigen/Core>
#include <algorithm>

#include "lane_math.h"
#include "ramus/runtime/model/model.h"

namespace ramus::lane_ops {

using lanes::kLanes;
using lanes::Lane;
using lanes::Mat3;
using lanes::Mat3T;
using lanes::Vec3;
using lanes::Vec3T;

// The lanes of L: 8 for a Lane, 4 for a Half.
template <class L>
constexpr int kWidth = L::SizeAtCompileTime;

// out[l] = (v[offset[0] + l], ..., v[offset[kWidth<L> - 1] + l]) for l < n.
template <class L>
void gather(const double* v, const int* offset, int n, L* out) {
  const double* rows[kWidth<L>];
  for (int lane = 0; lane < kWidth<L>; ++lane) rows[lane] = v + offset[lane];
  lanes::load_transposed(rows, n, out);
}

// v[offset[lane] + l] = in[l](lane) for l < n, lane < count.
template <class L>
void scatter(const L* in, const int* offset, int n, int count, double* v) {
  double* rows[kWidth<L>];
  for (int lane = 0; lane < kWidth<L>; ++lane) rows[lane] = v + offset[lane];
  lanes::store_transposed(in, n, rows, count);
}

template <class L>
Eigen::Matrix3d lane_matrix(const Mat3T<L>& A, int k) {
  Eigen::Matrix3d M;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) M(i, j) = A(i, j)(k);
  return M;
}

template <class L>
void set_lane(Mat3T<L>& A, int k, const Eigen::Matrix3d& M) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A(i, j)(k) = M(i, j);
}

template <class L = Lane>
Vec3T<L> gather_vector(const Eigen::Matrix3Xd& columns, const int* index) {
  Vec3T<L> v;
  for (int d = 0; d < 3; ++d)
    for (int lane = 0; lane < kWidth<L>; ++lane) v[d](lane) = columns(d, index[lane]);
  return v;
}

// The 3 by 3 block `index` of a 3 by 3N matrix, per lane.
template <class L = Lane>
Mat3T<L> gather_matrix(const Eigen::Matrix3Xd& blocks, const int* index) {
  int offset[kWidth<L>];
  for (int lane = 0; lane < kWidth<L>; ++lane) offset[lane] = 9 * index[lane];
  L column_major[9];
  gather(blocks.data(), offset, 9, column_major);
  Mat3T<L> A;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A(i, j) = column_major[i + 3 * j];
  return A;
}

template <class L>
void scatter_vector(const Vec3T<L>& v, const int* index, int count, Eigen::Matrix3Xd& columns) {
  for (int k = 0; k < count; ++k)
    for (int d = 0; d < 3; ++d) columns(d, index[k]) = v[d](k);
}

template <class L>
void scatter_matrix(const Mat3T<L>& A, const int* index, int count, Eigen::Matrix3Xd& blocks) {
  int offset[kWidth<L>];
  for (int lane = 0; lane < kWidth<L>; ++lane) offset[lane] = 9 * index[lane];
  L column_major[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) column_major[i + 3 * j] = A(i, j);
  scatter(column_major, offset, 9, count, blocks.data());
}

// L values of a per-domain scalar, get(domain, its index).
template <class L = Lane, class Get>
L per_domain(const Model& model, const int* index, Get get) {
  L value;
  for (int lane = 0; lane < kWidth<L>; ++lane)
    value(lane) = get(model.domains[static_cast<std::size_t>(index[lane])], index[lane]);
  return value;
}

// Lanes past `count` repeat the last domain (computed, never stored).
inline void lane_domains(const int* domains, int count, int* index) {
  for (int lane = 0; lane < kLanes; ++lane) index[lane] = domains[std::min(lane, count - 1)];
}

}  // namespace ramus::lane_ops
