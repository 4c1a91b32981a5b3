// Reductions spread over processes: parts as bytes and back bit for bit, the share of each
// process, and a tree reduced by two in-process "processes" equal to the one reduced alone.
#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "ramus/error.h"
#include "ramus/precompute/reduction/distributed_reduction.h"
#include "support/random_models.h"
#include "support/split_beams.h"

using namespace ramus;
using Catch::Matchers::Contains;

namespace {

// Every field of a part through the field list (the tests' recorder, not the serializer).
test::FieldRecorder::Fields part_fields(const ReducedPart& part) {
  test::FieldRecorder recorder("part");
  model_fields::visit_part(part, 2, recorder);
  return recorder.fields;
}

// `size` processes as threads of this test, meeting in all_gather.
class ThreadExchange {
 public:
  explicit ThreadExchange(int size) : size_(size), slots_(static_cast<std::size_t>(size)) {}
  std::vector<std::string> all_gather(int rank, const std::string& mine) {
    std::unique_lock<std::mutex> lock(mutex_);
    slots_[static_cast<std::size_t>(rank)] = mine;
    if (++arrived_ == size_) changed_.notify_all();
    changed_.wait(lock, [&] { return arrived_ == size_; });
    return slots_;
  }

 private:
  int size_;
  int arrived_ = 0;
  std::vector<std::string> slots_;
  std::mutex mutex_;
  std::condition_variable changed_;
};

class ThreadProcess final : public ProcessGroup {
 public:
  ThreadProcess(ThreadExchange& exchange, int rank, int size)
      : exchange_(exchange), rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::string> all_gather(const std::string& mine) override {
    return exchange_.all_gather(rank_, mine);
  }

 private:
  ThreadExchange& exchange_;
  int rank_, size_;
};

// body(processes) run as `size` processes at once; their results in rank order.
template <typename Result, typename Body>
std::vector<Result> as_processes(int size, Body body) {
  ThreadExchange exchange(size);
  std::vector<Result> results(static_cast<std::size_t>(size));
  std::vector<std::thread> threads;
  for (int rank = 0; rank < size; ++rank)
    threads.emplace_back([&, rank] {
      ThreadProcess process(exchange, rank, size);
      results[static_cast<std::size_t>(rank)] = body(&process);
    });
  for (std::thread& t : threads) t.join();
  return results;
}

}  // namespace

TEST_CASE("A part survives bytes bit for bit, and cut bytes are refused",
          "[precompute][reduction]") {
  const ReducedModel model = test::make_model(7);
  for (const ReducedPart& part : model.parts) {
    const std::string bytes = part_to_bytes(part);
    const ReducedPart back = part_from_bytes(bytes);
    CHECK(part_fields(back) == part_fields(part));
    CHECK_THROWS_WITH(part_from_bytes(std::string_view(bytes).substr(0, bytes.size() / 2)),
                      Contains("part bytes: they end inside field"));
    CHECK_THROWS_WITH(part_from_bytes(bytes + "x"), Contains("bytes left after the last field"));
  }
}

TEST_CASE("The work is shared largest first, each item once", "[precompute][reduction]") {
  // 5 3 3 2 2 1 over 2: {5, 2, 1} and {3, 3, 2}, 8 each.
  const std::vector<int> owner = share_work({2, 5, 3, 1, 3, 2}, 2);
  REQUIRE(owner.size() == 6);
  double load[2] = {0, 0};
  const double work[6] = {2, 5, 3, 1, 3, 2};
  for (int k = 0; k < 6; ++k) load[owner[static_cast<std::size_t>(k)]] += work[k];
  CHECK(load[0] == 8);
  CHECK(load[1] == 8);
  CHECK(owner[1] == 0);  // the largest to rank 0
  CHECK(share_work({1, 1, 1}, 1) == std::vector<int>{0, 0, 0});
  CHECK(share_work({4, 1}, 3) == std::vector<int>{0, 1});  // a process may get nothing
}

TEST_CASE("Items reduced on two processes reach both, and so does a failure",
          "[precompute][reduction]") {
  const ReducedModel model = test::make_model(3);
  const std::vector<double> work(model.parts.size(), 1.0);
  const auto copy_part = [&](std::size_t k) { return model.parts[k]; };
  const auto results = as_processes<std::vector<ReducedPart>>(
      2, [&](ProcessGroup* p) { return reduce_distributed(work, 1, p, copy_part); });
  for (const std::vector<ReducedPart>& parts : results) {
    REQUIRE(parts.size() == model.parts.size());
    for (std::size_t k = 0; k < parts.size(); ++k)
      CHECK(part_fields(parts[k]) == part_fields(model.parts[k]));
  }

  // Item 1 (rank 1's) fails with a MeshError: both processes throw it, indices kept.
  const auto failing = [&](std::size_t k) -> ReducedPart {
    if (k == 1) throw MeshError("tet 4 is inverted", 4, 2);
    return model.parts[k];
  };
  const auto errors = as_processes<std::string>(2, [&](ProcessGroup* p) -> std::string {
    try {
      reduce_distributed(work, 1, p, failing);
    } catch (const MeshError& e) {
      return std::string(e.what()) + " @" + std::to_string(e.element());
    }
    return "no error";
  });
  CHECK(errors[0] == "tet 4 is inverted @4");
  CHECK(errors[1] == "tet 4 is inverted @4");
}

TEST_CASE("A tree reduced on two or three processes is the tree reduced alone, bit for bit",
          "[precompute][reduction]") {
  const TetMesh mesh = test::split_beam_mesh();
  Eigen::VectorXi tet_domain(mesh.num_tets());
  for (int t = 0; t < mesh.num_tets(); ++t) {
    double x = 0;
    for (int c = 0; c < 4; ++c) x += mesh.rest_positions(mesh.tets(t, c), 0) / 4;
    tet_domain(t) = std::min(3, static_cast<int>(x * 4));
  }
  const std::vector<int> anchors = test::clamped_vertices(mesh);
  const DomainTree tree = build_domain_tree(mesh, tet_domain, anchors);
  const std::vector<Material> materials = assign_materials(mesh, test::kSplitBeamMaterial);
  ReductionSpec reduction;
  reduction.r = 6;
  reduction.linear_modes = 3;
  const std::vector<ReductionSpec> reductions(4, reduction);
  const auto build = [&](ProcessGroup* p) {
    return build_substructured_model(mesh, materials, tree, anchors, reductions, {}, 1, p);
  };
  const ReducedModel alone = build(nullptr);
  for (const int size : {2, 3}) {
    INFO(size << " processes");
    for (const ReducedModel& model : as_processes<ReducedModel>(size, build))
      test::require_equal(alone, model);
  }
}
