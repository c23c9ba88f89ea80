// The app data rules on arbitrary bytes. Input: DOCUMENT, NUL, PATCH, NUL, CURSOR.
// Contract: never crashes; a normalized document is a JSON object within the limits that
// normalizes to itself; a merge of two valid objects is valid and within the limits, and
// merging the same patch twice changes nothing more (RFC 7396 is idempotent); a cursor that
// parses renders back to the same position.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "platform/app_data_store.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

std::string_view field(std::string_view& rest) {
  std::size_t nul = rest.find('\0');
  std::string_view out = rest.substr(0, nul);
  rest = nul == std::string_view::npos ? std::string_view() : rest.substr(nul + 1);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  std::string_view doc = field(rest), patch = field(rest), cursor = field(rest);
  platform::app_data_limits limits;
  limits.max_document_bytes = 4096;

  auto normalized = platform::normalize_document(doc, limits);
  if (normalized) {
    check(normalized->size() <= limits.max_document_bytes);
    auto j = nlohmann::json::parse(*normalized, nullptr, false);
    check(j.is_object());
    auto again = platform::normalize_document(*normalized, limits);
    check(again && *again == *normalized);
    auto merged = platform::merge_document(*normalized, patch, limits);
    if (merged) {
      check(merged->size() <= limits.max_document_bytes);
      check(nlohmann::json::parse(*merged, nullptr, false).is_object());
      auto twice = platform::merge_document(*merged, patch, limits);
      check(twice && *twice == *merged);
    }
  } else {
    const auto& code = normalized.error().code;
    check(code == platform::api_error::invalid_data || code == platform::api_error::document_too_large);
  }

  if (auto pos = platform::parse_page_cursor(cursor)) {
    platform::app_document d;
    d.id = pos->id;
    d.created_at = pos->created_at;
    auto back = platform::parse_page_cursor(platform::page_cursor(d));
    check(back && back->id == pos->id && back->created_at == pos->created_at);
  }
  return 0;
}
