// Reading errors and in-place edits of model files, for the tests of bad files (tests only).
#pragma once

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include "io/hdf5/hdf5_file.h"  // runtime internals: the HDF5 wrapper
#include "ramus/error.h"
#include "ramus/runtime/io/model_file.h"

namespace ramus::test {

// what() of the InputError `f` throws; fails the test when it throws nothing or something else.
inline std::string input_error(const std::string& path, const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    CHECK(e.file() == path);
    return e.what();
  }
  FAIL("expected an InputError");
  return "";
}

inline std::string read_error(const std::string& path) {
  return input_error(path, [&] { read_model_file(path); });
}

// Opens a written model read-write, lets `edit` change it, and seals it again (so the reader's
// later checks, not its integrity header, judge the change).
inline void edit(const std::string& path, const std::function<void(const hdf5::Group&)>& change) {
  hdf5::File file = hdf5::File::open_read_write(path);
  {
    const hdf5::Group root = file.root();
    change(root);
  }
  file.close();
  hdf5::seal_file(path);
}

inline std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace ramus::test
