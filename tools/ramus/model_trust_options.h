// Command-line options of the commands that load a model file: which signatures they accept
// (--trust KEY.pub, repeatable; --signed-only), as the runtime's ModelTrust.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "ramus/runtime/data/model_trust.h"
#include "ramus/runtime/io/model_signature.h"

namespace ramus::cli {

/// The options as given.
struct TrustArgs {
  std::vector<std::string> key_files;
  bool signed_only = false;
};

/// Registers --trust and --signed-only on `command`.
inline void add_trust_options(CLI::App* command, TrustArgs& args) {
  command->add_option("--trust", args.key_files,
                      "Public key file (`ramus keygen`): a signed model must be signed by one of "
                      "these keys, checked before the file is parsed (repeatable)");
  command->add_flag("--signed-only", args.signed_only,
                    "Refuse unsigned models (needs --trust): for files from untrusted sources");
}

/// The ModelTrust of the options (InputError naming a bad key file).
inline ModelTrust model_trust(const TrustArgs& args) {
  ModelTrust trust;
  for (const std::string& file : args.key_files)
    trust.trusted_keys.push_back(read_public_key_file(file));
  trust.require_signature = args.signed_only;
  return trust;
}

}  // namespace ramus::cli
