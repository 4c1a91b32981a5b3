// reduce_distributed (distributed_reduction.h): the share of each process, its items on threads,
// then every item's part or failure exchanged as bytes.
#include "ramus/precompute/reduction/distributed_reduction.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <numeric>
#include <thread>

#include "ramus/error.h"

namespace ramus {

namespace {

// What an item's bytes hold: its part, or the kind of error it threw.
enum class ItemStatus : std::uint8_t { kPart, kError, kMeshError, kOptionError, kNumericalError };

// An item's failure as bytes (kind, element and vertex, message).
std::string failure_bytes(const std::exception_ptr& failure, ItemStatus& status) {
  std::int64_t where[2] = {-1, -1};
  std::string message;
  try {
    std::rethrow_exception(failure);
  } catch (const MeshError& e) {
    status = ItemStatus::kMeshError;
    where[0] = e.element();
    where[1] = e.vertex();
    message = e.what();
  } catch (const OptionError& e) {
    status = ItemStatus::kOptionError;
    message = e.what();
  } catch (const NumericalError& e) {
    status = ItemStatus::kNumericalError;
    message = e.what();
  } catch (const std::exception& e) {
    status = ItemStatus::kError;
    message = e.what();
  } catch (...) {
    status = ItemStatus::kError;
    message = "an unknown exception";
  }
  return std::string(reinterpret_cast<const char*>(where), sizeof where) + message;
}

// The failure failure_bytes wrote, as an exception to rethrow.
std::exception_ptr failure_from_bytes(ItemStatus status, std::string_view bytes) {
  std::int64_t where[2] = {-1, -1};
  if (bytes.size() < sizeof where) return std::make_exception_ptr(Error("part bytes: truncated"));
  std::memcpy(where, bytes.data(), sizeof where);
  const std::string message(bytes.substr(sizeof where));
  switch (status) {
    case ItemStatus::kMeshError:
      return std::make_exception_ptr(MeshError(message, where[0], where[1]));
    case ItemStatus::kOptionError:
      return std::make_exception_ptr(OptionError(message));
    case ItemStatus::kNumericalError:
      return std::make_exception_ptr(NumericalError(message));
    default:
      return std::make_exception_ptr(Error(message));
  }
}

template <typename T>
void append_raw(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

template <typename T>
T read_raw(std::string_view bytes, std::size_t& at) {
  T value{};
  if (sizeof value > bytes.size() - at) throw Error("part bytes: a process sent truncated items");
  std::memcpy(&value, bytes.data() + at, sizeof value);
  at += sizeof value;
  return value;
}

// Runs reduce(k) for each of `items` on `threads` threads; a failure is kept, not thrown.
void reduce_items(const std::vector<std::size_t>& items, int threads,
                  const std::function<ReducedPart(std::size_t)>& reduce,
                  std::vector<ReducedPart>& parts, std::vector<std::exception_ptr>& failures) {
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < items.size(); i = next++) {
      try {
        parts[items[i]] = reduce(items[i]);
      } catch (...) {
        failures[items[i]] = std::current_exception();
      }
    }
  };
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t count =
      std::min<std::size_t>(items.size(), threads > 0 ? static_cast<std::size_t>(threads) : cores);
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < count; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

// This process's items as bytes: per item its index, status, length and part or failure.
std::string items_bytes(const std::vector<std::size_t>& items, std::vector<ReducedPart>& parts,
                        const std::vector<std::exception_ptr>& failures) {
  std::string out;
  for (const std::size_t k : items) {
    ItemStatus status = ItemStatus::kPart;
    const std::string body =
        failures[k] ? failure_bytes(failures[k], status) : part_to_bytes(parts[k]);
    append_raw(out, static_cast<std::uint64_t>(k));
    append_raw(out, status);
    append_raw(out, static_cast<std::uint64_t>(body.size()));
    out += body;
  }
  return out;
}

// Another process's items, read into `parts` and `failures`.
void read_items(std::string_view bytes, std::vector<ReducedPart>& parts,
                std::vector<std::exception_ptr>& failures) {
  std::size_t at = 0;
  while (at < bytes.size()) {
    const auto k = read_raw<std::uint64_t>(bytes, at);
    const auto status = read_raw<ItemStatus>(bytes, at);
    const auto length = read_raw<std::uint64_t>(bytes, at);
    if (k >= parts.size() || length > bytes.size() - at)
      throw Error("part bytes: a process sent item " + std::to_string(k) + " of " +
                  std::to_string(parts.size()) + " (" + std::to_string(length) + " bytes)");
    const std::string_view body = bytes.substr(at, length);
    at += length;
    if (status == ItemStatus::kPart)
      parts[k] = part_from_bytes(body);
    else
      failures[k] = failure_from_bytes(status, body);
  }
}

// OpenBLAS's thread-count calls, when the BLAS loaded is OpenBLAS.
using SetThreads = void (*)(int);
using GetThreads = int (*)();
SetThreads openblas_set() {
  return reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
}
GetThreads openblas_get() {
  return reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
}

}  // namespace

SingleThreadedBlas::SingleThreadedBlas() {
  const SetThreads set = openblas_set();
  const GetThreads get = openblas_get();
  if (set == nullptr || get == nullptr) return;
  restore_ = get();
  set(1);
}

SingleThreadedBlas::~SingleThreadedBlas() {
  if (restore_ > 0) openblas_set()(restore_);
}

std::vector<int> share_work(const std::vector<double>& work, int processes) {
  std::vector<std::size_t> order(work.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return work[a] > work[b]; });
  std::vector<double> load(static_cast<std::size_t>(std::max(1, processes)), 0.0);
  std::vector<int> owner(work.size(), 0);
  for (const std::size_t k : order) {
    const auto least = std::min_element(load.begin(), load.end()) - load.begin();
    owner[k] = static_cast<int>(least);
    load[static_cast<std::size_t>(least)] += work[k];
  }
  return owner;
}

std::vector<ReducedPart> reduce_distributed(const std::vector<double>& work, int threads,
                                            ProcessGroup* processes,
                                            const std::function<ReducedPart(std::size_t)>& reduce) {
  const int size = processes != nullptr ? processes->size() : 1;
  const int rank = processes != nullptr ? processes->rank() : 0;
  const std::vector<int> owner = share_work(work, size);
  std::vector<std::size_t> mine;
  for (std::size_t k = 0; k < owner.size(); ++k)
    if (owner[k] == rank) mine.push_back(k);

  std::vector<ReducedPart> parts(work.size());
  std::vector<std::exception_ptr> failures(work.size());
  reduce_items(mine, threads, reduce, parts, failures);

  // Every other process's items, received; this process's failures keep their own type.
  if (size > 1) {
    const std::vector<std::string> all = processes->all_gather(items_bytes(mine, parts, failures));
    for (int r = 0; r < static_cast<int>(all.size()); ++r)
      if (r != rank) read_items(all[static_cast<std::size_t>(r)], parts, failures);
  }
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
  return parts;
}

}  // namespace ramus
