#pragma once
// Factories of the per-runtime normalizers, one source file each, and what they share.
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "platform/runtime_normalizer.hpp"

namespace platform {

std::unique_ptr<runtime_normalizer> make_runtime_b_normalizer();
std::unique_ptr<runtime_normalizer> make_runtime_c_normalizer();

// Which value of a key that an object repeats counts. runtime-b has always read runtime output
// with simdjson (the first), runtime-c with nlohmann::json (the last); each keeps its own.
enum class repeated_key { first, last };

// Whether an object's key is `key`: byte by byte, as member names are short (a call to
// memcmp costs more than comparing them here).
inline bool same_key(std::string_view a, std::string_view key) {
  if (a.size() != key.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != key[i]) return false;
  }
  return true;
}

// The values of `keys` in a simdjson DOM object, in one pass over its members; a missing key
// stays empty. The keys are not empty.
template <repeated_key which, class Object, std::size_t N>
auto pick_members(const Object& object, const std::string_view (&keys)[N]) {
  std::array<std::optional<decltype((*object.begin()).value)>, N> found;
  for (auto field : object) {
    for (std::size_t i = 0; i < N; ++i) {
      if (same_key(field.key, keys[i])) {
        if (which == repeated_key::last || !found[i]) found[i] = field.value;
        break;
      }
    }
  }
  return found;
}

// Cuts a runtime's output into lines for a parser that reads `padding` bytes past the end of
// what it parses (simdjson). A line that arrives whole in one piece with `padding` more bytes
// after it is handed over in place, without a copy; any other line is assembled in a buffer
// with that much room. A line longer than `max_bytes` is skipped without being held.
class line_splitter {
 public:
  line_splitter(std::size_t max_bytes, std::size_t padding) : max_bytes_(max_bytes), padding_(padding) {}

  // Calls on_line(std::string_view) for each complete line in `bytes`; the `padding` bytes
  // after each line it is given are readable (their content is unspecified).
  template <class F>
  void feed(std::string_view bytes, F&& on_line) {
    while (!bytes.empty()) {
      const char* nl = static_cast<const char*>(std::memchr(bytes.data(), '\n', bytes.size()));
      std::size_t len = nl ? static_cast<std::size_t>(nl - bytes.data()) : bytes.size();
      if (skipping_) {
        skipping_ = nl == nullptr;
      } else if (partial_.size() + len > max_bytes_) {
        release();
        skipping_ = nl == nullptr;
      } else if (nl && partial_.empty() && bytes.size() - len >= padding_) {
        on_line(bytes.substr(0, len));
      } else {
        partial_.append(bytes.data(), len);
        if (nl) emit_partial(on_line);
      }
      bytes.remove_prefix(nl ? len + 1 : bytes.size());
    }
  }

  // End of the stream: an unterminated last line is a line too.
  template <class F>
  void finish(F&& on_line) {
    if (!skipping_ && !partial_.empty()) emit_partial(on_line);
    release();
    skipping_ = false;
  }

 private:
  template <class F>
  void emit_partial(F& on_line) {
    partial_.reserve(partial_.size() + padding_);
    on_line(std::string_view(partial_));
    partial_.clear();
    if (partial_.capacity() > kept_capacity) release();  // one long line does not stay resident
  }

  void release() {
    partial_.clear();
    partial_.shrink_to_fit();
  }

  static constexpr std::size_t kept_capacity = 1u << 20;
  std::size_t max_bytes_;
  std::size_t padding_;
  std::string partial_;
  bool skipping_ = false;
};

}  // namespace platform
