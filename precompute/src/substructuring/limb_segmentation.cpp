// Segmentation of a skeleton of level-set slices into limbs and domains (limb_segmentation.h).
#include "limb_segmentation.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <numeric>
#include <vector>

namespace ramus::limb_segmentation {
namespace {

std::size_t sz(int i) {
  return static_cast<std::size_t>(i);
}

// Diameter of a round cross-section of area a.
double diameter(double area) {
  return 2.0 * std::sqrt(std::max(area, 0.0) / std::numbers::pi);
}

double area(const SkeletonNode& n) {
  return n.volume / n.length;
}

// Mean cross-section (total volume / total length) of the nodes seq[from], seq[from + step], ...
// taken until they span the diameter of the first one's cross-section (at least one node).
double window_area(const std::vector<SkeletonNode>& nodes, const std::vector<int>& seq, int from,
                   int step) {
  const double span = diameter(area(nodes[sz(seq[sz(from)])]));
  double volume = 0.0;
  double length = 0.0;
  for (int i = from; i >= 0 && i < static_cast<int>(seq.size()) && (length == 0.0 || length < span);
       i += step) {
    volume += nodes[sz(seq[sz(i)])].volume;
    length += nodes[sz(seq[sz(i)])].length;
  }
  return volume / length;
}

// The best cut of seq[a, b) (index s: [a, s) | [s, b)) and its contrast, or s = -1: both sides
// hold min_domain_tets, the thinner side's window is at least `neck_contrast` times thinner and
// that side is slender (as long as twice its diameter), so a sphere's cap is no limb.
std::pair<int, double> best_cut(const std::vector<SkeletonNode>& nodes, const std::vector<int>& seq,
                                int a, int b, const LimbOptions& options) {
  int best = -1;
  double best_contrast = 0.0;
  for (int s = a + 1; s < b; ++s) {
    int tets_left = 0;
    int tets_right = 0;
    double len_left = 0.0;
    double len_right = 0.0;
    for (int i = a; i < b; ++i) {
      const SkeletonNode& n = nodes[sz(seq[sz(i)])];
      (i < s ? tets_left : tets_right) += n.tets;
      (i < s ? len_left : len_right) += n.length;
    }
    if (tets_left < options.min_domain_tets || tets_right < options.min_domain_tets) continue;
    const double left = window_area(nodes, seq, s - 1, -1);
    const double right = window_area(nodes, seq, s, +1);
    if (!(left > 0.0) || !(right > 0.0)) continue;
    const double contrast = std::max(left / right, right / left);
    const double thin_length = left < right ? len_left : len_right;
    if (thin_length < 2.0 * diameter(std::min(left, right))) continue;
    if (contrast > best_contrast) {
      best_contrast = contrast;
      best = s;
    }
  }
  return {best, best_contrast};
}

// Cuts seq[a, b) recursively at its best cuts while their contrast reaches neck_contrast.
void cut_limb(const std::vector<SkeletonNode>& nodes, const std::vector<int>& seq, int a, int b,
              const LimbOptions& options, std::vector<int>& cuts) {
  const auto [s, contrast] = best_cut(nodes, seq, a, b, options);
  if (s < 0 || contrast < options.neck_contrast) return;
  cuts.push_back(s);
  cut_limb(nodes, seq, a, s, options, cuts);
  cut_limb(nodes, seq, s, b, options, cuts);
}

// Union-find over pieces, merging into the parent piece.
int find(std::vector<int>& up, int x) {
  while (up[sz(x)] != x) x = up[sz(x)] = up[sz(up[sz(x)])];
  return x;
}

}  // namespace

namespace {

// The slices' tree: each slice's children, and its root.
struct SliceTree {
  std::vector<std::vector<int>> children;
  int root = -1;
};

// Step 1: the continuation of every slice (-1: none).
std::vector<int> continuations(const std::vector<SkeletonNode>& nodes, const SliceTree& tree,
                               const LimbOptions& options) {
  const int n = static_cast<int>(nodes.size());
  const std::vector<std::vector<int>>& children = tree.children;
  const int root = tree.root;
  // 1. The continuation of every slice: its only child, or the child whose cross-section
  // dominates every sibling's. Labels (when given) bound limbs: a child of another label never
  // continues, and the only child of the same label always does.
  const auto descent = [&](int c) {
    std::vector<int> seq{c};
    while (children[sz(seq.back())].size() == 1) seq.push_back(children[sz(seq.back())][0]);
    return seq;
  };
  // Volume carried by every node (itself and everything beyond it), children before parents.
  std::vector<double> subtree_volume(sz(n), 0.0);
  {
    std::vector<int> order{root};
    for (std::size_t i = 0; i < order.size(); ++i)
      for (const int c : children[sz(order[i])]) order.push_back(c);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      subtree_volume[sz(*it)] += nodes[sz(*it)].volume;
      if (nodes[sz(*it)].parent >= 0)
        subtree_volume[sz(nodes[sz(*it)].parent)] += subtree_volume[sz(*it)];
    }
  }
  std::vector<int> continuation(sz(n), -1);
  for (int p = 0; p < n; ++p) {
    const auto& kids = children[sz(p)];
    std::vector<int> same;
    for (const int c : kids)
      if (nodes[sz(c)].label == nodes[sz(p)].label) same.push_back(c);
    if (same.empty()) continue;
    if (kids.size() == 1 || (same.size() == 1 && nodes[sz(p)].label >= 0)) {
      continuation[sz(p)] = same[0];
      continue;
    }
    std::vector<double> start(kids.size());
    for (std::size_t k = 0; k < kids.size(); ++k)
      start[k] = window_area(nodes, descent(kids[k]), 0, +1);
    const auto same_label = [&](std::size_t k) {
      return nodes[sz(kids[k])].label == nodes[sz(p)].label;
    };
    // The candidate: the thickest child of the parent's label; failing thickness, the one
    // carrying the most volume (a stem above its branches), if it is not much thinner.
    const auto dominant_by = [&](const std::vector<double>& measure, std::size_t* top) {
      *top = kids.size();
      for (std::size_t k = 0; k < kids.size(); ++k)
        if (same_label(k) && (*top == kids.size() || measure[k] > measure[*top])) *top = k;
      for (std::size_t k = 0; k < kids.size(); ++k)
        if (k != *top && measure[*top] < options.dominance * measure[k]) return false;
      return true;
    };
    std::size_t top = 0;
    bool dominant = dominant_by(start, &top);
    if (!dominant) {
      std::vector<double> carried(kids.size());
      for (std::size_t k = 0; k < kids.size(); ++k) carried[k] = subtree_volume[sz(kids[k])];
      dominant = dominant_by(carried, &top);
      for (std::size_t k = 0; k < kids.size(); ++k)
        if (options.dominance * start[top] < start[k]) dominant = false;
    }
    if (dominant) continuation[sz(p)] = kids[top];
  }

  return continuation;
}

// Step 2's result: every node's piece, the pieces that may be stubs, the number of limbs.
struct LimbPieces {
  std::vector<int> piece;
  int num_pieces = 0;
  int num_limbs = 0;
  std::vector<int> stub_pieces;
};

// Step 2: the limbs and their cuts.
LimbPieces cut_limbs(const std::vector<SkeletonNode>& nodes, const SliceTree& tree,
                     const std::vector<int>& continuation, const LimbOptions& options) {
  const int n = static_cast<int>(nodes.size());
  const std::vector<std::vector<int>>& children = tree.children;
  const int root = tree.root;
  LimbPieces out;
  std::vector<int>& piece = out.piece;
  int& num_pieces = out.num_pieces;
  int& num_limbs = out.num_limbs;
  std::vector<int>& stub_pieces = out.stub_pieces;
  // 2. Limbs (chains of continuations from a slice no parent continues into), each cut where
  // its cross-section changes abruptly: every node gets a piece.
  piece.assign(sz(n), -1);
  std::vector<int> heads{root};
  for (int i = 0; i < n; ++i)
    if (i != root && continuation[sz(nodes[sz(i)].parent)] != i) heads.push_back(i);
  for (const int head : heads) {
    std::vector<int> seq{head};
    while (continuation[sz(seq.back())] >= 0) seq.push_back(continuation[sz(seq.back())]);
    std::vector<int> cuts;
    cut_limb(nodes, seq, 0, static_cast<int>(seq.size()), options, cuts);
    std::sort(cuts.begin(), cuts.end());
    ++num_limbs;
    // An uncut limb leaving a junction may be a stub (its length under 1.5 diameters: a bump,
    // a fragment of a far level set), no appendage; it joins its parent below if it ends there.
    const int parent = nodes[sz(head)].parent;
    if (cuts.empty() && parent >= 0 && children[sz(parent)].size() >= 2 &&
        nodes[sz(head)].label == nodes[sz(parent)].label) {
      double volume = 0.0;
      double length = 0.0;
      for (const int i : seq) {
        volume += nodes[sz(i)].volume;
        length += nodes[sz(i)].length;
      }
      if (length < 1.5 * diameter(volume / length)) stub_pieces.push_back(num_pieces);
    }
    std::size_t next_cut = 0;
    for (int i = 0; i < static_cast<int>(seq.size()); ++i) {
      if (i == 0 || (next_cut < cuts.size() && cuts[next_cut] == i)) {
        if (i > 0) ++next_cut;
        ++num_pieces;
      }
      piece[sz(seq[sz(i)])] = num_pieces - 1;
    }
  }

  return out;
}

}  // namespace

LimbDomains segment_limbs(const std::vector<SkeletonNode>& nodes, const LimbOptions& options) {
  const int n = static_cast<int>(nodes.size());
  SliceTree tree;
  tree.children.resize(sz(n));
  for (int i = 0; i < n; ++i)
    if (nodes[sz(i)].parent < 0)
      tree.root = i;
    else
      tree.children[sz(nodes[sz(i)].parent)].push_back(i);
  const int root = tree.root;
  const std::vector<int> continuation = continuations(nodes, tree, options);
  const LimbPieces limbs = cut_limbs(nodes, tree, continuation, options);
  const std::vector<int>& piece = limbs.piece;
  const int num_pieces = limbs.num_pieces;
  const int num_limbs = limbs.num_limbs;
  const std::vector<int>& stub_pieces = limbs.stub_pieces;

  // The piece tree: a piece's parent is the piece of its first node's parent.
  std::vector<int> piece_parent(sz(num_pieces), -1);
  std::vector<int> piece_tets(sz(num_pieces), 0);
  for (int i = 0; i < n; ++i) {
    piece_tets[sz(piece[sz(i)])] += nodes[sz(i)].tets;
    const int p = nodes[sz(i)].parent;
    if (p >= 0 && piece[sz(p)] != piece[sz(i)]) piece_parent[sz(piece[sz(i)])] = piece[sz(p)];
  }
  std::vector<int> up(sz(num_pieces));
  std::iota(up.begin(), up.end(), 0);
  const int root_piece = piece[sz(root)];
  const auto merge_into_parent = [&](int q) {
    const int into = find(up, piece_parent[sz(q)]);
    up[sz(q)] = into;
    piece_tets[sz(into)] += piece_tets[sz(q)];
  };
  const auto alive = [&](int q) { return find(up, q) == q; };

  // 3. Stubs that end without children, and pieces too small to be domains, join their parent
  // (the small ones smallest first).
  {
    std::vector<char> has_child(sz(num_pieces), 0);
    for (int q = 0; q < num_pieces; ++q)
      if (piece_parent[sz(q)] >= 0) has_child[sz(piece_parent[sz(q)])] = 1;
    for (const int q : stub_pieces)
      if (!has_child[sz(q)]) merge_into_parent(q);
  }
  for (;;) {
    int smallest = -1;
    for (int q = 0; q < num_pieces; ++q)
      if (q != root_piece && alive(q) && piece_tets[sz(q)] < options.min_domain_tets &&
          (smallest < 0 || piece_tets[sz(q)] < piece_tets[sz(smallest)]))
        smallest = q;
    if (smallest < 0) break;
    merge_into_parent(smallest);
  }

  // 4. Depth within max_depth: on the deepest path the smallest piece (not the root) merges
  // into its parent.
  int depth_merges = 0;
  for (;;) {
    const auto depth_of = [&](int q) {
      int d = 0;
      for (q = find(up, q); q != root_piece; q = find(up, piece_parent[sz(q)])) ++d;
      return d;
    };
    int deepest = -1;
    int max_depth = 0;
    for (int q = 0; q < num_pieces; ++q)
      if (alive(q) && depth_of(q) > max_depth) {
        max_depth = depth_of(q);
        deepest = q;
      }
    if (max_depth <= options.max_depth) break;
    int smallest = deepest;
    for (int q = deepest; q != root_piece; q = find(up, piece_parent[sz(q)]))
      if (piece_tets[sz(q)] < piece_tets[sz(smallest)]) smallest = q;
    merge_into_parent(smallest);
    ++depth_merges;
  }

  // Number the surviving pieces, the root's first, then in node order.
  LimbDomains out;
  std::vector<int> number(sz(num_pieces), -1);
  number[sz(root_piece)] = out.num_domains++;
  out.domain_of_node.resize(sz(n));
  for (int i = 0; i < n; ++i) {
    const int q = find(up, piece[sz(i)]);
    if (number[sz(q)] < 0) number[sz(q)] = out.num_domains++;
    out.domain_of_node[sz(i)] = number[sz(q)];
  }
  out.num_limbs = num_limbs;
  out.depth_merges = depth_merges;
  return out;
}

}  // namespace ramus::limb_segmentation
