// platformctl agents hash FILE: prints the current approval hash of an agents.json.
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "platform/approval_hash.hpp"
#include "platform/compact_json.hpp"

namespace platformctl {

int run_agents_hash(const args& a) {
  if (a.positional.size() != 2) return usage_error("usage: platformctl agents hash FILE");
  auto text = read_input(a.positional[1]);
  if (!text) return exit_usage;
  auto hashed = platform::approval_hash_of(*text);
  if (!hashed) {
    nlohmann::ordered_json reply = {{"ok", false},
                            {"error", {{"code", hashed.error().code}, {"message", hashed.error().message}}}};
    print_line(platform::compact_json(reply));
    return exit_invalid;
  }
  print_line(hashed->hash);
  return exit_ok;
}

}  // namespace platformctl
