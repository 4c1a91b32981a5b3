// A reduced part as bytes and back (distributed_reduction.h): every field of the model file's
// field list (io/model_fields.h) in its order, raw, so the part a process receives is the part
// another one built, bit for bit.
#include <cstdint>
#include <cstring>

#include "io/model_fields.h"  // runtime internals: the one list of the file's fields
#include "ramus/error.h"
#include "ramus/precompute/reduction/distributed_reduction.h"

namespace ramus {

namespace {

// Appends each field: sizes as int64, values raw (column-major), a byte per optional group.
class PartWriter {
 public:
  std::string bytes;

  void attribute(const char*, const std::string& value) {
    raw(static_cast<std::uint64_t>(value.size()));
    bytes += value;
  }
  void attribute(const char*, const int& value) { raw(value); }
  void attribute(const char*, const double& value) { raw(value); }
  void attribute(const char*, const std::uint64_t& value) { raw(value); }
  void require_nonnegative(const char*, const int& value) { raw(value); }
  template <typename M>
  void dataset(const char*, const M& value, model_fields::Shape) {
    raw(static_cast<std::int64_t>(value.rows()));
    raw(static_cast<std::int64_t>(value.cols()));
    bytes.append(reinterpret_cast<const char*>(value.data()),
                 sizeof(typename M::Scalar) * static_cast<std::size_t>(value.size()));
  }
  void packed_symmetric(const char* name, const Eigen::MatrixXd& value, Eigen::Index) {
    dataset(name, value, {});
  }
  template <typename Body>
  void group(const char*, model_fields::Presence presence, Body&& body) {
    raw(static_cast<std::uint8_t>(presence.present));
    if (presence.present) body();
  }
  template <typename Body>
  void optional(const char* name, model_fields::Presence presence, Body&& body) {
    group(name, presence, body);
  }

 private:
  template <typename T>
  void raw(const T& value) {
    bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
};

// Reads what PartWriter wrote, refusing bytes that end early or sizes that do not fit.
class PartReader {
 public:
  explicit PartReader(std::string_view bytes) : bytes_(bytes) {}
  bool finished() const { return at_ == bytes_.size(); }

  void attribute(const char* name, std::string& value) {
    const auto n = raw<std::uint64_t>(name);
    if (n > bytes_.size() - at_) truncated(name);
    value.assign(bytes_.substr(at_, n));
    at_ += n;
  }
  void attribute(const char* name, int& value) { value = raw<int>(name); }
  void attribute(const char* name, double& value) { value = raw<double>(name); }
  void attribute(const char* name, std::uint64_t& value) { value = raw<std::uint64_t>(name); }
  void require_nonnegative(const char* name, int& value) { value = raw<int>(name); }
  template <typename M>
  void dataset(const char* name, M& value, model_fields::Shape) {
    const auto rows = raw<std::int64_t>(name);
    const auto cols = raw<std::int64_t>(name);
    constexpr Eigen::Index fixed_cols = M::ColsAtCompileTime;
    if (rows < 0 || cols < 0 || (fixed_cols != Eigen::Dynamic && cols != fixed_cols))
      throw Error(std::string("part bytes: field '") + name + "' has shape " +
                  std::to_string(rows) + " by " + std::to_string(cols));
    const auto size = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
    if (cols != 0 && size / static_cast<std::uint64_t>(cols) != static_cast<std::uint64_t>(rows))
      truncated(name);
    if (size > (bytes_.size() - at_) / sizeof(typename M::Scalar)) truncated(name);
    if constexpr (M::IsVectorAtCompileTime)
      value.resize(static_cast<Eigen::Index>(size));
    else
      value.resize(rows, cols);
    const std::size_t n = sizeof(typename M::Scalar) * size;
    if (n > 0) std::memcpy(value.data(), bytes_.data() + at_, n);
    at_ += n;
  }
  void packed_symmetric(const char* name, Eigen::MatrixXd& value, Eigen::Index) {
    dataset(name, value, {});
  }
  template <typename Body>
  void group(const char* name, model_fields::Presence, Body&& body) {
    if (raw<std::uint8_t>(name) != 0) body();
  }
  template <typename Body>
  void optional(const char* name, model_fields::Presence presence, Body&& body) {
    group(name, presence, body);
  }

 private:
  [[noreturn]] static void truncated(const char* name) {
    throw Error(std::string("part bytes: they end inside field '") + name + "'");
  }
  template <typename T>
  T raw(const char* name) {
    if (sizeof(T) > bytes_.size() - at_) truncated(name);
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }

  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace

std::string part_to_bytes(const ReducedPart& part) {
  PartWriter writer;
  model_fields::visit_part(part, 1, writer);
  return std::move(writer.bytes);
}

ReducedPart part_from_bytes(std::string_view bytes) {
  ReducedPart part;
  PartReader reader(bytes);
  model_fields::visit_part(part, 1, reader);
  if (!reader.finished()) throw Error("part bytes: bytes left after the last field");
  return part;
}

}  // namespace ramus
