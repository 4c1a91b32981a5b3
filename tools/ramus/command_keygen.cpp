// `ramus keygen NAME`: a key pair for signed model files, NAME.key (secret) and NAME.pub.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "ramus/precompute/model/model_signing.h"
#include "ramus/runtime/io/model_signature.h"

namespace ramus::cli {

void add_keygen_command(CLI::App& app) {
  auto prefix = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "keygen",
      "Make an Ed25519 key pair for signed models: NAME.key (secret: `precompute --sign`) and "
      "NAME.pub (public: what a game passes at load, `--trust` of the tools); never overwrites");
  command->add_option("name", *prefix, "Path of the key pair without extension")->required();
  command->callback([prefix] {
    const ModelPublicKey key = write_key_pair(*prefix);
    std::printf("wrote        %s.key (secret: keep it private) and %s.pub\npublic key   %s\n",
                prefix->c_str(), prefix->c_str(), public_key_hex(key).c_str());
  });
}

}  // namespace ramus::cli
