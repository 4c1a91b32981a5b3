// Independent reductions (an assembly's parts, a tree's domains) spread over threads and, under
// `mpirun`, over processes: each process reduces its share, every process receives every part,
// so the serial and the distributed runs build the same model bit for bit.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// The processes one precompute runs on (the CLI's MPI communicator; precompute itself has no
/// MPI dependency). Every process runs the same pipeline and calls all_gather at the same points.
class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  /// This process, 0 .. size() - 1; rank 0 reports and writes.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Every process's `mine`, in rank order, on every process (a collective call).
  virtual std::vector<std::string> all_gather(const std::string& mine) = 0;
};

/// The owner of each item: the largest `work` first, each to the least loaded of `processes`
/// (ties: the lower rank). The same on every process.
std::vector<int> share_work(const std::vector<double>& work, int processes);

/// reduce(k) for every k < work.size(): this process's share (share_work) on `threads` threads
/// (0: all cores), the others' received from them; `processes` null: all here. A failure is
/// rethrown on every process, the first in item order (a remote one as Error, MeshError,
/// OptionError or NumericalError with its message).
std::vector<ReducedPart> reduce_distributed(const std::vector<double>& work, int threads,
                                            ProcessGroup* processes,
                                            const std::function<ReducedPart(std::size_t)>& reduce);

/// For its lifetime, the BLAS library runs on one thread (OpenBLAS, found at run time; another
/// BLAS is left alone): its threaded sums round differently per thread count, so precompute's
/// numbers would depend on the cores (and an mpirun's binding) it runs on. Precompute's own
/// parallelism is over parts and domains.
class SingleThreadedBlas {
 public:
  SingleThreadedBlas();
  ~SingleThreadedBlas();
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  int restore_ = -1;  ///< the thread count before, or -1: nothing to restore
};

/// A part as bytes and back, field by field through the model file's field list (bitwise).
std::string part_to_bytes(const ReducedPart& part);
/// Throws Error when `bytes` are not a whole part.
ReducedPart part_from_bytes(std::string_view bytes);

}  // namespace ramus
