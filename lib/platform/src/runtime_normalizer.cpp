#include "platform/runtime_normalizer.hpp"

#include <cstring>

#include "platform/api_error.hpp"
#include "runtime_normalizers.hpp"

namespace platform {
namespace {

// runtime-a's stream-json already is the worker message form. Host-only frames (the
// initialize answer, keep-alives, transcript mirrors holding the whole session) stay behind.
class runtime_a_normalizer final : public runtime_normalizer {
 public:
  void feed(std::string_view bytes, std::string& out) override {
    lines_.feed(bytes, [&](std::string_view line) { emit(line, out); });
  }

  void finish(std::string& out) override {
    lines_.finish([&](std::string_view line) { emit(line, out); });
  }

 private:
  static bool host_only(std::string_view line) {
    std::string_view head = line.substr(0, 48);
    return head.find("\"type\":\"control_") != std::string_view::npos ||
           head.find("\"type\":\"keep_alive\"") != std::string_view::npos ||
           head.find("\"type\":\"transcript_mirror\"") != std::string_view::npos;
  }

  static void emit(std::string_view line, std::string& out) {
    if (line.empty() || host_only(line)) return;
    out.append(line);
    out.push_back('\n');
  }

  // As long a line as the bridge takes (bridge_options::max_line_bytes); no parse here, so
  // no padding.
  line_splitter lines_{64u << 20, 0};
};

}  // namespace

result<std::unique_ptr<runtime_normalizer>> make_runtime_normalizer(std::string_view runtime_id) {
  if (runtime_id == "runtime-a") return std::unique_ptr<runtime_normalizer>(new runtime_a_normalizer());
  if (runtime_id == "runtime-b") return make_runtime_b_normalizer();
  if (runtime_id == "runtime-c") return make_runtime_c_normalizer();
  return fail(api_error::unknown_runtime, "unknown runtime '" + std::string(runtime_id) +
                                     "': expected runtime-a, runtime-b or runtime-c");
}

}  // namespace platform
