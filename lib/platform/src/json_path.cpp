#include "platform/json_path.hpp"

#include <nlohmann/json.hpp>

#include "platform/compact_json.hpp"

namespace platform {
namespace {

bool is_identifier(std::string_view k) {
  if (k.empty()) return false;
  auto head = static_cast<unsigned char>(k.front());
  if (!(std::isalpha(head) || head == '_' || head == '$')) return false;
  for (char c : k) {
    auto u = static_cast<unsigned char>(c);
    if (!(std::isalnum(u) || u == '_' || u == '$')) return false;
  }
  return true;
}

}  // namespace

json_path json_path::key(std::string_view k) const {
  json_path next = *this;
  if (is_identifier(k)) {
    if (!next.text_.empty()) next.text_ += '.';
    next.text_ += k;
  } else {
    // A JSON string literal keeps odd keys (dots, quotes, brackets) unambiguous.
    next.text_ += '[';
    next.text_ += compact_json(nlohmann::json(std::string(k)));
    next.text_ += ']';
  }
  return next;
}

json_path json_path::index(std::size_t i) const {
  json_path next = *this;
  next.text_ += '[';
  next.text_ += std::to_string(i);
  next.text_ += ']';
  return next;
}

}  // namespace platform
