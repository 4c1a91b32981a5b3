// Typed exceptions thrown by Ramus' offline code and loaders (never by the runtime step).
// Every message names what is wrong and where: file and line, element or vertex index.
#pragma once

#include <stdexcept>
#include <string>

namespace ramus {

/// Base of every exception Ramus throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Malformed or inconsistent input file. what() reads "file:line: message" (line 0: whole file).
class InputError : public Error {
 public:
  InputError(std::string file, long line, const std::string& message);
  const std::string& file() const { return file_; }
  long line() const { return line_; }

 private:
  std::string file_;
  long line_ = 0;
};

/// A mesh that parsed but cannot be simulated (inverted tet, index out of range, ...).
/// element() is the offending tet (or -1); vertex() the offending vertex (or -1).
class MeshError : public Error {
 public:
  MeshError(const std::string& message, long element = -1, long vertex = -1);
  long element() const { return element_; }
  long vertex() const { return vertex_; }

 private:
  long element_ = -1;
  long vertex_ = -1;
};

/// Invalid option or impossible request (mode count larger than free DOFs, negative time step).
class OptionError : public Error {
 public:
  using Error::Error;
};

/// A numerical stage failed (factorization not positive definite, eigen solver not converged).
class NumericalError : public Error {
 public:
  using Error::Error;
};

}  // namespace ramus
