#include "platform/ui_stream.hpp"

namespace platform {

bool sse_parser::feed(std::string_view bytes, std::vector<std::string>& events) {
  constexpr std::string_view bom = "\xEF\xBB\xBF";
  for (char c : bytes) {
    if (failed_) return false;
    if (bom_pos_ < bom.size()) {  // still deciding whether the body starts with a BOM
      if (c == bom[bom_pos_]) {
        ++bom_pos_;
        continue;
      }
      auto seen = bom.substr(0, bom_pos_);
      bom_pos_ = bom.size();
      for (char p : seen) consume(p, events);
    }
    consume(c, events);
  }
  return !failed_;
}

void sse_parser::consume(char c, std::vector<std::string>& events) {
  if (c == '\n' && after_cr_) {  // CRLF: the CR already ended the line
    after_cr_ = false;
    return;
  }
  after_cr_ = (c == '\r');
  if (c == '\n' || c == '\r') {
    end_line(events);
    return;
  }
  line_.push_back(c);
  if (line_.size() + data_.size() > max_event_) failed_ = true;
}

void sse_parser::end_line(std::vector<std::string>& events) {
  if (line_.empty()) {
    if (has_data_) events.push_back(std::move(data_));
    data_.clear();
    has_data_ = false;
    return;
  }
  std::string_view line = line_;
  if (line.front() != ':') {
    auto colon = line.find(':');
    std::string_view field = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view{} : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (field == "data") {
      if (has_data_) data_.push_back('\n');
      data_.append(value);
      has_data_ = true;
      if (data_.size() > max_event_) failed_ = true;
    }
  }
  line_.clear();
}

}  // namespace platform
