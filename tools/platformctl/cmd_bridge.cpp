// platformctl bridge translate: a runtime transcript to the SSE body the browser would get.
#include <cstdio>

#include "cli.hpp"
#include "platform/bridge.hpp"
#include "platform/runtime_normalizer.hpp"

namespace platformctl {

int run_bridge(int argc, char** argv) {
  std::string err;
  auto a = parse_args(argc, argv, 2, {"runtime", "message-id"}, err);
  if (!a) return usage_error(err);
  if (a->positional.empty() || a->positional[0] != "translate") {
    return usage_error("bridge: expected 'translate'");
  }
  auto runtime = a->get("runtime");
  if (!runtime) return usage_error("bridge translate: --runtime runtime-a|runtime-b|runtime-c is required");
  auto normalizer = platform::make_runtime_normalizer(*runtime);
  if (!normalizer) return usage_error("bridge translate: unknown runtime '" + *runtime + "'");
  auto input = read_input(a->positional.size() > 1 ? a->positional[1] : "-");
  if (!input) return exit_usage;
  platform::bridge_options options;
  if (auto id = a->get("message-id")) options.message_id = *id;
  platform::bridge b(options);
  std::string messages, out;
  (*normalizer)->feed(*input, messages);
  (*normalizer)->finish(messages);
  b.feed(messages, out);
  b.finish(out);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return exit_ok;
}

}  // namespace platformctl
