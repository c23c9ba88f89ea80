// platformctl bridge translate: a runtime transcript to the SSE body the browser would get.
#include <cstdio>
#include <string>
#include <vector>

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
  // Streams: the input goes through in 64 KiB pieces (they stay in cache), so memory stays flat whatever its size
  // (the bridge keeps only an unfinished line and the open parts).
  std::string path = a->positional.size() > 1 ? a->positional[1] : "-";
  std::FILE* in = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!in) {
    std::fprintf(stderr, "platformctl: cannot read %s\n", path.c_str());
    return exit_usage;
  }
  platform::bridge_options options;
  if (auto id = a->get("message-id")) options.message_id = *id;
  platform::bridge b(options);
  std::vector<char> piece(64u << 10);
  std::string messages, out;
  auto flush = [&] {
    b.feed(messages, out);
    messages.clear();
    std::fwrite(out.data(), 1, out.size(), stdout);
    out.clear();
  };
  // runtime-a's stream-json already is the worker message form, and the bridge skips the
  // host-only frames its normalizer would drop: a second pass over every byte buys nothing here.
  bool direct = *runtime == "runtime-a";
  for (std::size_t n; (n = std::fread(piece.data(), 1, piece.size(), in)) > 0;) {
    if (direct) {
      b.feed(std::string_view(piece.data(), n), out);
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
      continue;
    }
    (*normalizer)->feed(std::string_view(piece.data(), n), messages);
    flush();
  }
  bool read_failed = std::ferror(in) != 0;
  if (in != stdin) std::fclose(in);
  if (read_failed) {
    std::fprintf(stderr, "platformctl: cannot read %s\n", path.c_str());
    return exit_usage;
  }
  (*normalizer)->finish(messages);
  flush();
  b.finish(out);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return exit_ok;
}

}  // namespace platformctl
