#include "platform/runtime_normalizer.hpp"

#include <cstring>

#include "runtime_normalizers.hpp"

namespace platform {
namespace {

// runtime-a's stream-json already is the worker message form. Host-only frames (the
// initialize answer, keep-alives, transcript mirrors holding the whole session) stay behind.
class runtime_a_normalizer final : public runtime_normalizer {
 public:
  void feed(std::string_view bytes, std::string& out) override {
    while (!bytes.empty()) {
      const char* nl = static_cast<const char*>(std::memchr(bytes.data(), '\n', bytes.size()));
      if (!nl) {
        partial_.append(bytes);
        return;
      }
      std::size_t len = static_cast<std::size_t>(nl - bytes.data());
      if (partial_.empty()) {
        emit(bytes.substr(0, len), out);
      } else {
        partial_.append(bytes.substr(0, len));
        emit(partial_, out);
        partial_.clear();
      }
      bytes.remove_prefix(len + 1);
    }
  }

  void finish(std::string& out) override {
    if (!partial_.empty()) emit(partial_, out);
    partial_.clear();
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

  std::string partial_;
};

}  // namespace

result<std::unique_ptr<runtime_normalizer>> make_runtime_normalizer(std::string_view runtime_id) {
  if (runtime_id == "runtime-a") return std::unique_ptr<runtime_normalizer>(new runtime_a_normalizer());
  if (runtime_id == "runtime-b") return make_runtime_b_normalizer();
  if (runtime_id == "runtime-c") return make_runtime_c_normalizer();
  return fail("unknown_runtime", "unknown runtime '" + std::string(runtime_id) +
                                     "': expected runtime-a, runtime-b or runtime-c");
}

}  // namespace platform
