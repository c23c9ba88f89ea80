#include <charconv>

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/app_data_store.hpp"
#include "platform/compact_json.hpp"
#include "platform/json_limits.hpp"
#include "platform/json_text.hpp"

namespace platform {

using nlohmann::json;

namespace {

bool id_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

// The text as a JSON object, checked for nesting before the recursive parser sees it.
result<json> parse_object(std::string_view text, std::string_view what) {
  if (nests_deeper_than(text, app_data_limits::max_depth)) {
    return fail(api_error::invalid_data, std::string(what) + " nests deeper than " + std::to_string(app_data_limits::max_depth) +
                                    " levels");
  }
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return fail(api_error::invalid_data, std::string(what) + " is not valid JSON");
  if (!j.is_object()) return fail(api_error::invalid_data, std::string(what) + " must be a JSON object");
  return j;
}

result<std::string> within_limits(const json& j, const app_data_limits& limits) {
  std::string out = compact_json(j);
  if (out.size() > limits.max_document_bytes) {
    return fail(api_error::document_too_large, "a document's data may hold at most " + std::to_string(limits.max_document_bytes) +
                                          " bytes of JSON; this one holds " + std::to_string(out.size()));
  }
  return out;
}

}  // namespace

std::string_view to_string(data_scope s) { return s == data_scope::draft ? "draft" : "published"; }

std::optional<data_scope> data_scope_from(std::string_view s) {
  if (s == "draft") return data_scope::draft;
  if (s == "published") return data_scope::published;
  return std::nullopt;
}

bool valid_collection_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  char first = name.front();
  if (!((first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z'))) return false;
  for (char c : name) {
    if (!id_char(c)) return false;
  }
  return true;
}

bool valid_document_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    if (!id_char(c)) return false;
  }
  return true;
}

result<std::string> normalize_document(std::string_view text, const app_data_limits& limits) {
  auto j = parse_object(text, "data");
  if (!j) return tl::unexpected(j.error());
  return within_limits(*j, limits);
}

result<std::string> merge_document(std::string_view current, std::string_view patch, const app_data_limits& limits) {
  auto doc = parse_object(current, "the stored document");
  if (!doc) return fail(api_error::store_corrupt, doc.error().message);
  auto p = parse_object(patch, "data");
  if (!p) return tl::unexpected(p.error());
  doc->merge_patch(*p);  // RFC 7396; an object patch keeps the target an object
  return within_limits(*doc, limits);
}

std::string page_cursor(const app_document& doc) { return std::to_string(doc.created_at) + "." + doc.id; }

std::optional<page_position> parse_page_cursor(std::string_view cursor) {
  auto dot = cursor.find('.');
  if (dot == std::string_view::npos || dot == 0) return std::nullopt;
  page_position at;
  auto [p, ec] = std::from_chars(cursor.data(), cursor.data() + dot, at.created_at);
  if (ec != std::errc() || p != cursor.data() + dot || at.created_at < 0) return std::nullopt;
  at.id = std::string(cursor.substr(dot + 1));
  if (!valid_document_id(at.id)) return std::nullopt;
  return at;
}

std::string document_to_json(const app_document& doc) {
  std::string out = "{\"id\":";
  append_json_string(out, doc.id);
  out += ",\"data\":";
  out += doc.data_json;  // stored compact by normalize_document / merge_document
  out += ",\"version\":" + std::to_string(doc.version);
  out += ",\"createdAt\":" + std::to_string(doc.created_at);
  out += ",\"updatedAt\":" + std::to_string(doc.updated_at) + "}";
  return out;
}

}  // namespace platform
