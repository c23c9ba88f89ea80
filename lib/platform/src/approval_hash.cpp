#include "platform/approval_hash.hpp"

#include <array>
#include <exception>

#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include "platform/api_error.hpp"
#include "platform/canonical_json.hpp"

namespace platform {

namespace {

using json = nlohmann::json;

constexpr std::size_t sha256_hex_size = 64;

std::string sha256_hex(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1) return {};
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < size; ++i) {
    out.push_back(hex[digest[i] >> 4]);
    out.push_back(hex[digest[i] & 0xF]);
  }
  return out;
}

// ---- v1 normalization: FROZEN. Stored v1 approvals depend on it byte for byte; a change of
// ---- what counts as the same policy belongs in a new hash_scheme.

void drop_empty_array_v1(json& object, const char* key) {
  auto it = object.find(key);
  if (it != object.end() && it->is_array() && it->empty()) object.erase(it);
}

void default_key_slug_v1(json& tool) {
  if (!tool.is_object()) return;
  auto integration = tool.find("integration");
  if (integration == tool.end() || !integration->is_object()) return;
  if (!integration->contains("keySlug")) (*integration)["keySlug"] = "default";
}

void normalize_tools_v1(json& object, const char* key) {
  auto tools = object.find(key);
  if (tools == object.end() || !tools->is_array()) return;
  for (auto& tool : *tools) default_key_slug_v1(tool);
}

// Shapes the normalization does not look into are hashed as they are: judging them is the
// validator's job, and the hash must stay defined for every document it could be shown.
result<json> normalize_v1(json doc) {
  if (!doc.is_object() || !doc.contains("agents") || !doc["agents"].is_array()) {
    return fail(api_error::not_agents_document, "agents.json must be a JSON object with an \"agents\" array");
  }
  drop_empty_array_v1(doc, "appTools");
  normalize_tools_v1(doc, "appTools");
  for (auto& agent : doc["agents"]) {
    if (!agent.is_object()) continue;
    drop_empty_array_v1(agent, "tools");
    drop_empty_array_v1(agent, "dataCollections");
    normalize_tools_v1(agent, "tools");
  }
  return doc;
}

// ---- end of v1

// ---- v2 normalization: FROZEN once released, as v1 is. v1's rules, then the triggers'.

// "0  8 * *\t1-5 " and "0 8 * * 1-5" are the same schedule.
std::string joined_fields_v2(const std::string& cron) {
  std::string out;
  std::size_t i = 0;
  while (i < cron.size()) {
    while (i < cron.size() && (cron[i] == ' ' || cron[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < cron.size() && cron[i] != ' ' && cron[i] != '\t') ++i;
    if (i > start) out += (out.empty() ? "" : " ") + cron.substr(start, i - start);
  }
  return out;
}

result<json> normalize_v2(json doc) {
  auto v1 = normalize_v1(std::move(doc));
  if (!v1) return v1;
  for (auto& agent : (*v1)["agents"]) {
    if (!agent.is_object()) continue;
    auto triggers = agent.find("triggers");
    if (triggers == agent.end() || !triggers->is_object()) continue;
    if (triggers->empty()) {
      agent.erase(triggers);
      continue;
    }
    auto schedule = triggers->find("schedule");
    if (schedule == triggers->end() || !schedule->is_object()) continue;
    auto cron = schedule->find("cron");
    if (cron != schedule->end() && cron->is_string()) *cron = joined_fields_v2(cron->get<std::string>());
  }
  return v1;
}

// ---- end of v2

using normalizer = result<json> (*)(json);

normalizer normalizer_of(hash_scheme scheme) {
  switch (scheme) {
    case hash_scheme::v1: return &normalize_v1;
    case hash_scheme::v2: return &normalize_v2;
  }
  return nullptr;
}

bool is_lower_hex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// Canonical text first: it rejects what the DOM parser would silently accept (duplicate
// keys, out-of-range numbers) and gives the DOM exact doubles to work on.
result<approval> hash_with(normalizer normalize, hash_scheme scheme, std::string_view text) {
  auto canonical = canonicalize_json(text);
  if (!canonical) return tl::unexpected(canonical.error());
  json doc = json::parse(*canonical, nullptr, false);
  if (doc.is_discarded()) return fail(api_error::internal, "canonical JSON did not parse back");
  auto normalized = normalize(std::move(doc));
  if (!normalized) return tl::unexpected(normalized.error());
  auto payload = canonicalize_json(normalized->dump());
  if (!payload) return tl::unexpected(payload.error());
  std::string digest = sha256_hex(*payload);
  if (digest.size() != sha256_hex_size) return fail(api_error::internal, "SHA-256 is unavailable");
  return approval{std::string(hash_scheme_name(scheme)) + ":" + digest, std::move(*payload)};
}

}  // namespace

std::string_view hash_scheme_name(hash_scheme scheme) noexcept {
  switch (scheme) {
    case hash_scheme::v1: return "v1";
    case hash_scheme::v2: return "v2";
  }
  return "";
}

std::optional<hash_scheme> hash_scheme_of(std::string_view hash) noexcept {
  auto colon = hash.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view digest = hash.substr(colon + 1);
  if (digest.size() != sha256_hex_size || !is_lower_hex(digest)) return std::nullopt;
  std::string_view name = hash.substr(0, colon);
  for (hash_scheme s : {hash_scheme::v1, hash_scheme::v2}) {
    if (name == hash_scheme_name(s)) return s;
  }
  return std::nullopt;
}

result<approval> approval_hash(hash_scheme scheme, std::string_view agents_json_text) {
  normalizer normalize = normalizer_of(scheme);
  if (normalize == nullptr) return fail(api_error::unknown_hash_scheme, "unknown approval hash scheme");
  try {
    return hash_with(normalize, scheme, agents_json_text);
  } catch (const std::exception& ex) {
    return fail(api_error::internal, std::string("approval hash failed: ") + ex.what());
  }
}

result<approval> approval_hash_v1(std::string_view agents_json_text) {
  return approval_hash(hash_scheme::v1, agents_json_text);
}

result<approval> approval_hash_v2(std::string_view agents_json_text) {
  return approval_hash(hash_scheme::v2, agents_json_text);
}

hash_scheme scheme_for_agents(std::string_view agents_json_text) {
  json doc = json::parse(agents_json_text, nullptr, false);
  if (!doc.is_object()) return hash_scheme::v1;
  auto agents = doc.find("agents");
  if (agents == doc.end() || !agents->is_array()) return hash_scheme::v1;
  for (const auto& agent : *agents) {
    if (!agent.is_object()) continue;
    auto triggers = agent.find("triggers");
    if (triggers != agent.end() && !(triggers->is_object() && triggers->empty())) return hash_scheme::v2;
  }
  return hash_scheme::v1;
}

result<approval> approval_hash_of(std::string_view agents_json_text) {
  return approval_hash(scheme_for_agents(agents_json_text), agents_json_text);
}

bool hashes_equal(std::string_view a, std::string_view b) noexcept {
  return hash_scheme_of(a).has_value() && a == b;
}

result<bool> matches_approved_hash(std::string_view approved_hash, std::string_view agents_json_text) {
  auto scheme = hash_scheme_of(approved_hash);
  if (!scheme) return fail(api_error::unknown_hash_scheme, "the approved hash is not of the form v1:<64 lowercase hex> or v2:<64 lowercase hex>");
  auto current = approval_hash(*scheme, agents_json_text);
  return current.has_value() && current->hash == approved_hash;
}

}  // namespace platform
