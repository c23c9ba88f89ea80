#include "platform/run_capability.hpp"

#include <openssl/crypto.h>

#include "platform/api_error.hpp"
#include "platform/hmac.hpp"

namespace platform {
namespace {

constexpr std::string_view prefix = "rc1.";

std::string_view kind_name(run_kind k) { return k == run_kind::agent_run ? "agent" : "builder"; }

}  // namespace

std::string run_capability(std::string_view key, const run_tuple& run) {
  std::string data;
  data.reserve(16 + run.workspace_id.size() + run.app_id.size() + run.run_id.size());
  data.append(kind_name(run.kind)).append("\n").append(run.workspace_id).append("\n").append(run.app_id).append("\n").append(run.run_id);
  return std::string(prefix) + hmac_sha256_hex(key, data);
}

bool same_run_capability(std::string_view expected, std::string_view offered) noexcept {
  return !expected.empty() && expected.size() == offered.size() &&
         CRYPTO_memcmp(expected.data(), offered.data(), expected.size()) == 0;
}

result<void> verify_run_capability(std::string_view key, std::string_view capability, const run_tuple& run) {
  if (capability.empty()) {
    return fail(api_error::invalid_run_capability, "this call needs the capability of the run it names (X-Run-Capability)");
  }
  // Newline-separated fields stay unambiguous only while no id holds one ("a\nb", "c" against
  // "a", "b\nc"); the platform's ids never do, so such a tuple names no run.
  for (std::string_view id : {run.workspace_id, run.app_id, run.run_id}) {
    if (id.empty() || id.find('\n') != std::string_view::npos) {
      return fail(api_error::invalid_run_capability, "the run capability names no run: an id is empty or holds a newline");
    }
  }
  if (!same_run_capability(run_capability(key, run), capability)) {
    return fail(api_error::invalid_run_capability, "the run capability was not given for this run");
  }
  return {};
}

}  // namespace platform
