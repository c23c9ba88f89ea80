// runtime-c's catalog: the parser of `opencode models --verbose` and the registry models a
// catalog gives (opencode_catalog.hpp; its JSON form is in opencode_catalog_json.cpp).
#include "platform/opencode_catalog.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "bounded_json.hpp"
#include "platform/api_error.hpp"
#include "runtime_rules.hpp"
#include "json_member.hpp"

namespace platform {
namespace {

using ojson = nlohmann::ordered_json;
using runtime_rules::contains;
using runtime_rules::strings;

constexpr std::size_t max_block_bytes = 1u << 20;
constexpr std::size_t max_id_bytes = 512;
constexpr std::size_t max_variant_bytes = 64;

bool is_id_line(std::string_view l) {
  if (l.empty() || l.size() > max_id_bytes || l.front() == '-' || l.front() == '/' || l.back() == '/') return false;
  if (l.find('/') == std::string_view::npos) return false;
  // Printable ASCII only: ids go to argv and into JSON unchanged.
  return std::all_of(l.begin(), l.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u > 0x20 && u < 0x7f;
  });
}

// A variant name becomes an argv item after --variant: keep it a plain token.
bool is_variant_name(std::string_view v) {
  if (v.empty() || v.size() > max_variant_bytes || v.front() == '-' || v == variant_auto) return false;
  return std::all_of(v.begin(), v.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

bool bool_at(const ojson& o, const char* key) {
  const ojson* v = find_member(o, key);
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

std::string string_at(const ojson& o, const char* key) {
  const ojson* v = find_member(o, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

// A price must be a finite, non-negative number; anything else means "unknown".
std::optional<double> price_at(const ojson* o, const char* key) {
  const ojson* v = o ? find_member(*o, key) : nullptr;
  if (v == nullptr || !v->is_number()) return std::nullopt;
  double d = v->get<double>();
  if (!std::isfinite(d) || d < 0) return std::nullopt;
  return d;
}

std::optional<model_pricing> cost_of_entry(const ojson& entry) {
  const ojson* cost = find_member(entry, "cost");
  auto in = price_at(cost, "input");
  auto out = price_at(cost, "output");
  if (!in || !out) return std::nullopt;
  const ojson* cache = cost ? find_member(*cost, "cache") : nullptr;
  model_pricing p;
  p.input = *in;
  p.output = *out;
  p.cache_read = price_at(cache, "read").value_or(0);
  p.cache_write = price_at(cache, "write").value_or(0);
  return p;
}

std::optional<opencode_model> model_of_entry(const std::string& id, const ojson& entry) {
  if (!entry.is_object()) return std::nullopt;
  opencode_model m;
  m.id = id;
  m.name = string_at(entry, "name");
  m.provider_id = string_at(entry, "providerID");
  m.status = string_at(entry, "status");
  if (const ojson* caps = find_member(entry, "capabilities")) {
    m.toolcall = bool_at(*caps, "toolcall");
    m.reasoning = bool_at(*caps, "reasoning");
  }
  if (const ojson* variants = find_member(entry, "variants"); variants && variants->is_object()) {
    for (const auto& [key, value] : variants->items()) {
      if (is_variant_name(key)) m.variants.push_back(key);
    }
  }
  m.cost = cost_of_entry(entry);
  if (const ojson* limit = find_member(entry, "limit")) {
    if (const ojson* ctx = find_member(*limit, "context"); ctx && ctx->is_number_integer()) {
      m.context_limit = std::max<std::int64_t>(0, ctx->get<std::int64_t>());
    }
  }
  return m;
}

}  // namespace

void opencode_models_parser::feed(std::string_view text) {
  std::size_t start = 0;
  while (true) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) break;
    std::string_view piece = text.substr(start, nl - start);
    if (partial_.empty()) {
      line(piece);
    } else {
      partial_.append(piece);
      line(partial_);
      partial_.clear();
    }
    start = nl + 1;
  }
  // An endless line is cut short instead of growing memory (line() cuts every line at the
  // same length, so the split of the input never changes the result).
  std::string_view rest = text.substr(start);
  if (partial_.size() < max_block_bytes) partial_.append(rest.substr(0, max_block_bytes - partial_.size()));
}

void opencode_models_parser::line(std::string_view l) {
  l = l.substr(0, max_block_bytes);
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  if (in_block_) {
    if (block_.size() + l.size() + 1 > max_block_bytes) {
      block_too_big_ = true;
    } else if (!block_too_big_) {
      block_.append(l).push_back('\n');
    }
    if (l == "}") {
      in_block_ = false;
      end_entry();
    }
    return;
  }
  if (l == "{") {
    in_block_ = true;
    block_ = "{\n";
    return;
  }
  if (is_id_line(l)) {
    end_entry();
    pending_id_.assign(l);
    return;
  }
  if (l.rfind("Error:", 0) == 0 && out_.error.empty()) {
    std::string_view msg = l.substr(6);
    while (!msg.empty() && msg.front() == ' ') msg.remove_prefix(1);
    out_.error.assign(msg.substr(0, max_id_bytes));
  }
}

void opencode_models_parser::end_entry() {
  std::string id = std::move(pending_id_);
  std::string block = std::move(block_);
  bool too_big = block_too_big_;
  pending_id_.clear();
  block_.clear();
  block_too_big_ = false;
  if (id.empty()) return;
  auto listed = [&](const std::string& x) {
    return contains(out_.skipped, x) ||
           std::any_of(out_.models.begin(), out_.models.end(), [&](const opencode_model& m) { return m.id == x; });
  };
  if (listed(id)) return;
  std::optional<opencode_model> m;
  if (!block.empty() && !too_big) {
    ojson entry = parse_json_within<ojson>(block, stored_json_limits);
    if (!entry.is_discarded()) m = model_of_entry(id, entry);
  }
  if (m && m->toolcall) {
    out_.models.push_back(std::move(*m));
  } else {
    out_.skipped.push_back(std::move(id));
  }
}

opencode_catalog opencode_models_parser::finish() {
  if (!partial_.empty()) {
    std::string last = std::move(partial_);
    partial_.clear();
    line(last);
  }
  if (in_block_) {  // an unterminated block: its model has no usable details
    in_block_ = false;
    block_.clear();
    block_too_big_ = true;
  }
  end_entry();
  opencode_catalog out = std::move(out_);
  *this = opencode_models_parser();
  return out;
}

result<opencode_catalog> parse_opencode_models(std::string_view text) {
  opencode_models_parser p;
  p.feed(text);
  opencode_catalog c = p.finish();
  if (!c.error.empty() && c.models.empty()) return fail(api_error::opencode_models_error, c.error);
  return c;
}

std::vector<runtime_model> runtime_c_models(const opencode_catalog& catalog) {
  std::vector<runtime_model> models;
  for (const auto& om : catalog.models) {
    runtime_model m;
    m.id = om.id;
    m.display_name = om.name.empty() ? om.id : om.name;
    m.description = om.reasoning ? "tool calls, reasoning" : "tool calls";
    strings variants = om.variants;
    variants.emplace_back(variant_auto);
    m.values.emplace(param_variant, std::move(variants));
    m.pricing = om.cost;
    models.push_back(std::move(m));
  }
  return models;
}

}  // namespace platform
