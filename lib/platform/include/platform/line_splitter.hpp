#pragma once
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace platform {

// The one JSON-lines splitter of the core (the bridge, every runtime normalizer): cuts a stream
// into lines for a parser that reads `padding` bytes past the end of what it parses (simdjson;
// 0 for none). A line that arrives whole in one piece with `padding` more bytes after it is
// handed over in place, without a copy; any other line is assembled in a buffer with that much
// room. A line longer than `max_bytes` is skipped (and counted) without being held, however
// the stream was cut into pieces, so a runaway producer cannot grow memory without bound.
// (child_process::read_line is a log reader instead: it keeps a long line's start.)
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
        ++skipped_;
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

  // Lines skipped for their length so far.
  std::size_t skipped() const { return skipped_; }

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
  std::size_t skipped_ = 0;
  bool skipping_ = false;
};

}  // namespace platform
