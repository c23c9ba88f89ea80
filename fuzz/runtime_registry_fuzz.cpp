// Fuzzes the parser of `opencode models --verbose` output and what the registry builds from it,
// plus the usage accumulators on the same bytes. Contract checked:
//   - the catalog does not depend on how the text is split across feed() calls;
//   - every offered model is tool-call capable, listed once, with a `provider/model` id and
//     variant names that are plain tokens (never `auto`, never a flag);
//   - every offered model normalizes with every one of its variants, and the argv carries
//     `--variant` exactly when the variant is not `auto`;
//   - usage increments are never negative and survive a JSON round trip.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "platform/opencode_catalog.hpp"
#include "platform/runtime_registry.hpp"
#include "platform/runtime_registry_json.hpp"
#include "platform/runtime_settings.hpp"
#include "platform/usage.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

bool same(const platform::opencode_catalog& a, const platform::opencode_catalog& b) {
  if (a.models.size() != b.models.size() || a.skipped != b.skipped || a.error != b.error) return false;
  for (std::size_t i = 0; i < a.models.size(); ++i) {
    const auto& x = a.models[i];
    const auto& y = b.models[i];
    if (x.id != y.id || x.name != y.name || x.variants != y.variants || x.toolcall != y.toolcall ||
        x.cost.has_value() != y.cost.has_value()) {
      return false;
    }
  }
  return true;
}

platform::opencode_catalog parse_in_chunks(std::string_view text, std::size_t chunk) {
  platform::opencode_models_parser p;
  for (std::size_t i = 0; i < text.size(); i += chunk) p.feed(text.substr(i, chunk));
  return p.finish();
}

bool plain_id(const std::string& id) {
  if (id.empty() || id.front() == '-' || id.find('/') == std::string::npos) return false;
  for (unsigned char c : id) {
    if (c <= 0x20 || c == 0x7f) return false;
  }
  return true;
}

void check_model(const platform::opencode_model& m, std::set<std::string>& seen) {
  check(m.toolcall);
  check(plain_id(m.id));
  check(seen.insert(m.id).second);
  std::set<std::string> variants;
  for (const auto& v : m.variants) {
    check(!v.empty() && v != "auto" && v.front() != '-');
    check(v.find_first_of(" \t\r\n\"") == std::string::npos);
    variants.insert(v);
  }
  if (m.cost) check(m.cost->input >= 0 && m.cost->output >= 0 && m.cost->cache_read >= 0 && m.cost->cache_write >= 0);
}

// Built once: none of this depends on the input. The catalog only ever changes runtime-c, so
// each input copies, fills and serializes a registry of runtime-c alone (runtime-a and
// runtime-b would serialize to the same bytes every time), and the pricing of runtime-a and
// runtime-b is computed once.
const platform::runtime_registry& builtin_runtime_c() {
  static const platform::runtime_registry r = [] {
    const auto all = platform::builtin_runtime_registry();
    const auto* c = all.find("runtime-c");
    check(c != nullptr && c->models.empty());
    return platform::runtime_registry(std::vector<platform::runtime_info>{*c});
  }();
  return r;
}

const platform::pricing_table& builtin_pricing() {
  static const platform::pricing_table p = platform::builtin_runtime_registry().pricing();
  return p;
}

// The whole registry's pricing() once runtime-c has `with_c`'s models: the built-in runtimes
// come first in the registry and the first entry of a name wins, as std::map::insert keeps it.
platform::pricing_table registry_pricing(const platform::runtime_registry& with_c) {
  platform::pricing_table table = builtin_pricing();
  auto c = with_c.pricing();
  table.insert(c.begin(), c.end());
  return table;
}

platform::runtime_registry check_registry(const platform::opencode_catalog& catalog) {
  platform::runtime_registry r = builtin_runtime_c();
  auto models = platform::runtime_c_models(catalog);
  check(r.set_models("runtime-c", models).has_value());
  for (const auto& m : models) {
    for (const auto& v : m.values.at("variant")) {
      auto s = platform::normalize_runtime_settings(r, "runtime-c", m.id, {{"variant", v}});
      check(s.has_value());
      check(s->runtime_model == m.id && s->args.size() >= 6 && s->args[5] == m.id);
      bool flag = s->args.size() == 8 && s->args[6] == "--variant" && s->args[7] == v;
      check(v == "auto" ? s->args.size() == 6 : flag);
    }
  }
  (void)platform::runtime_registry_to_json(r);
  return r;
}

void check_usage(std::string_view text, const platform::pricing_table& pricing) {
  for (const char* runtime : {"runtime-a", "runtime-b", "runtime-c"}) {
    platform::usage_context ctx;
    ctx.model = "mock/mock-model";
    ctx.pricing = pricing;
    auto turns = platform::turn_usages(runtime, text, ctx);
    check(turns.has_value());
    platform::run_usage total;
    for (const auto& t : *turns) {
      check(t.total_cost_usd >= 0 && t.total_input_tokens >= 0 && t.total_output_tokens >= 0 &&
            t.total_cache_read_tokens >= 0 && t.total_cache_creation_tokens >= 0);
      total += t;
    }
    auto back = platform::run_usage_from_json(platform::run_usage_to_json(total));
    check(back.has_value() && *back == total);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto whole = parse_in_chunks(text, text.size() + 1);
  std::size_t chunk = size == 0 ? 1 : 1 + data[0] % 16;
  check(same(whole, parse_in_chunks(text, chunk)));
  if (size <= 512) check(same(whole, parse_in_chunks(text, 1)));

  auto result = platform::parse_opencode_models(text);
  check(result.has_value() == (whole.error.empty() || !whole.models.empty()));

  std::set<std::string> seen;
  for (const auto& m : whole.models) check_model(m, seen);
  for (const auto& s : whole.skipped) check(seen.count(s) == 0);
  auto with_c = check_registry(whole);
  check_usage(text, registry_pricing(with_c));
  return 0;
}
