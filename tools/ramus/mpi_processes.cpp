// mpi_processes (mpi_processes.h): MPI_COMM_WORLD as a ProcessGroup; all_gather as one
// broadcast per process, in pieces MPI's int counts can hold.
#include "mpi_processes.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "ramus/error.h"

#ifdef RAMUS_HAVE_MPI
#include <mpi.h>
#endif

namespace ramus::cli {

namespace {

// A launcher's mark in the environment: Open MPI's, PMIx's or MPICH's (PMI) rank variables.
bool started_by_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

#ifdef RAMUS_HAVE_MPI

class MpiProcesses final : public ProcessGroup {
 public:
  MpiProcesses() {
    MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiProcesses() override { MPI_Finalize(); }
  MpiProcesses(const MpiProcesses&) = delete;
  MpiProcesses& operator=(const MpiProcesses&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<std::string> all_gather(const std::string& mine) override {
    // Every process's byte count, then each one's bytes broadcast from it.
    const auto count = static_cast<std::uint64_t>(mine.size());
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(size_));
    MPI_Allgather(&count, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
    std::vector<std::string> all(static_cast<std::size_t>(size_));
    for (int root = 0; root < size_; ++root) {
      std::string& bytes = all[static_cast<std::size_t>(root)];
      if (root == rank_)
        bytes = mine;
      else
        bytes.resize(counts[static_cast<std::size_t>(root)]);
      constexpr std::uint64_t kPiece = std::uint64_t{1} << 30;
      for (std::uint64_t at = 0; at < bytes.size(); at += kPiece) {
        const auto n = static_cast<int>(std::min<std::uint64_t>(kPiece, bytes.size() - at));
        MPI_Bcast(bytes.data() + at, n, MPI_BYTE, root, MPI_COMM_WORLD);
      }
    }
    return all;
  }

 private:
  int rank_ = 0;
  int size_ = 1;
};

#endif

}  // namespace

std::unique_ptr<ProcessGroup> mpi_processes() {
  if (!started_by_launcher()) return nullptr;
#ifdef RAMUS_HAVE_MPI
  return std::make_unique<MpiProcesses>();
#else
  throw Error(
      "started by mpirun, but this ramus was built without MPI: install Open MPI "
      "(libopenmpi-dev openmpi-bin) and build again, or run `ramus precompute` alone");
#endif
}

}  // namespace ramus::cli
