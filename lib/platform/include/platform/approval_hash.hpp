#pragma once
// The approval hash of agents.json: `v1:<sha256 hex>` over the canonical JSON (RFC 8785) of
// the normalized document. It is semantic, not byte-exact: key order, whitespace, escapes,
// number spelling and empty lists that count as omitted never change it; any change of
// runtime policy does. See docs/approval-hash.md.
#include <optional>
#include <string>
#include <string_view>

#include "platform/error.hpp"

namespace platform {

// One value per approval schema version. A new agents.json schema adds a scheme; the
// normalization of an existing scheme never changes, so approvals made under it stay valid
// until the effective policy changes (spec, Versioning 3).
// v2 (issue 37) adds agents' `triggers` (routines): a document whose agents declare triggers
// is hashed under v2, one without under v1, byte for byte as before v2 existed.
enum class hash_scheme { v1, v2 };

inline constexpr hash_scheme current_hash_scheme = hash_scheme::v2;



// "v1": the prefix written before the colon.
std::string_view hash_scheme_name(hash_scheme scheme) noexcept;

// The scheme of a stored hash, when it is well-formed (`<scheme>:<64 lowercase hex>`).
std::optional<hash_scheme> hash_scheme_of(std::string_view hash) noexcept;

struct approval {
  std::string hash;                     // "v1:<64 lowercase hex>"
  std::string normalized_payload_json;  // canonical JSON of the normalized document: stored as approved
};

// Hashes agents.json text under `scheme`.
// Error codes: those of canonicalize_json (invalid_json, invalid_utf8, duplicate_key,
// number_out_of_range, too_deep), not_agents_document (the top level is not an object with
// an `agents` array), unknown_hash_scheme.
result<approval> approval_hash(hash_scheme scheme, std::string_view agents_json_text);

// v1 normalization: drops an empty top-level `appTools`, an empty `tools` and an empty
// `dataCollections` of every agent, and gives every tool (agents[].tools[] and appTools[])
// whose `integration` object has no `keySlug` the keySlug "default". Nothing else.
result<approval> approval_hash_v1(std::string_view agents_json_text);

// v2 normalization: v1's, then an agent's `triggers` that is an empty object is removed and
// a `triggers.schedule.cron` string has its fields joined by single spaces. Nothing else.
result<approval> approval_hash_v2(std::string_view agents_json_text);

// The scheme a document is approved under: v2 when an agent has a non-empty `triggers`
// object, else v1 (so documents without triggers keep the hashes they always had).
hash_scheme scheme_for_agents(std::string_view agents_json_text);
// approval_hash under scheme_for_agents: what approving a document records.
result<approval> approval_hash_of(std::string_view agents_json_text);

// True when both are the same well-formed hash (scheme and digest).
bool hashes_equal(std::string_view a, std::string_view b) noexcept;

// Whether the current agents.json still carries the approved policy: it is hashed under the
// scheme of `approved_hash`, so introducing a new scheme never makes old approvals stale.
// A current text that cannot be hashed does not match (false); an approved hash of unknown
// form is an error (unknown_hash_scheme).
result<bool> matches_approved_hash(std::string_view approved_hash, std::string_view agents_json_text);

}  // namespace platform
