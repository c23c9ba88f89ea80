#pragma once
// Governed agents (spec "Governed approval record", "Agent config approval"): per app a draft
// and a published source snapshot (path -> file content, agents.json and
// integration-setup.json among them), the approval of an exact agents.json payload, and
// publishing, which promotes the approved payload together with a copy of the draft snapshot.
//
// The store keeps the v1 semantic hash of each snapshot's agents.json next to it, so that
// "the draft still carries the approved policy" is one comparison and every race-prone step
// (approve what the approver saw, publish only an approved draft) is a conditional statement
// in the database rather than read-then-write in C++. Time is passed in (ms since the epoch).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

namespace platform {

enum class source_scope : unsigned char { draft, published };
inline std::string_view to_string(source_scope s) { return s == source_scope::draft ? "draft" : "published"; }

inline constexpr std::string_view agents_json_path = "agents.json";
inline constexpr std::string_view integration_setup_path = "integration-setup.json";

using source_files = std::map<std::string, std::string>;  // relative path -> UTF-8 content

// A snapshot without its files: what status checks need.
struct snapshot_head {
  std::int64_t version = 0;            // +1 on every change of the snapshot
  std::optional<std::string> agents_hash;  // v1 hash of agents.json; nullopt: missing or unhashable
  std::int64_t updated_at = 0;
};

// The governed approval record: the exact payload an admin or owner approved.
struct agents_approval {
  std::string hash;                     // "v1:<sha256 hex>"
  std::string normalized_payload_json;  // canonical JSON of the normalized agents.json
  std::string approved_by;              // user id
  std::int64_t approved_at = 0;
};

// What the published app runs: the payload approved at publish time.
struct agents_publication {
  agents_approval approval;             // as it was when published
  std::string published_by;
  std::int64_t published_at = 0;
  std::int64_t snapshot_version = 0;    // draft version that was copied
};

enum class approve_outcome : unsigned char {
  approved,
  draft_changed,  // the draft's hash is no longer the one the approver saw
  no_draft,       // no draft snapshot (or it has no hashable agents.json)
};

enum class publish_outcome : unsigned char {
  published,
  unapproved,  // there is no approval
  stale,       // the draft's agents.json no longer hashes to the approved hash
  no_draft,
};

// A publish review (spec "Agent config approval": "review approved → the approved payload is
// promoted with the published source snapshot"; "Review is created later from the publish
// dialog"): an editor asks, an admin or owner approves (which publishes) or rejects. It names
// the draft it was asked for, so an approval never publishes a draft nobody reviewed. A
// rollback review (issue 35) asks instead for an earlier release to be published again: the
// store only records its decision, and the caller rolls back (release_store.hpp).
enum class review_status : unsigned char { pending, approved, rejected };
inline std::string_view to_string(review_status s) {
  return s == review_status::pending ? "pending" : s == review_status::approved ? "approved" : "rejected";
}

struct publish_review {
  std::string id;
  std::string workspace_id;
  std::string app_id;
  review_status status = review_status::pending;
  std::string requested_by;
  std::string note;                       // the requester's, bounded by the route
  std::int64_t draft_version = 0;         // the draft snapshot the request is for
  std::string decided_by;                 // "" while pending
  std::string decision_note;
  std::int64_t created_at = 0;
  std::int64_t decided_at = 0;
  std::optional<std::int64_t> rollback_to;  // a rollback review: the release to publish again
};

enum class review_request_outcome : unsigned char { created, already_pending, no_draft };

enum class review_decision_outcome : unsigned char {
  decided,        // rejected, or approved and published
  not_found,
  not_pending,    // decided already
  draft_changed,  // approving: the draft is no longer the one the request was for
  unapproved,     // approving: agents.json has no governed approval
  stale,          // approving: agents.json changed since its approval
  no_draft,
};

// Failures: store_unavailable, store_corrupt, store_invalid (as in store.hpp).
class governance_store {
 public:
  virtual ~governance_store() = default;

  virtual result<std::optional<snapshot_head>> head(std::string_view ws, std::string_view app, source_scope scope) = 0;
  virtual result<std::optional<std::string>> snapshot_file(std::string_view ws, std::string_view app,
                                                           source_scope scope, std::string_view path) = 0;
  // Every file of the snapshot (an empty map when there is none).
  virtual result<source_files> snapshot_files(std::string_view ws, std::string_view app, source_scope scope) = 0;

  // Makes `files` the whole draft (after a builder turn: the worker workspace is the truth).
  // Unchanged content keeps the version; returns the draft's head afterwards.
  virtual result<snapshot_head> replace_draft(std::string_view ws, std::string_view app, const source_files& files,
                                              std::int64_t now) = 0;
  // Writes one file of the draft (a user's PATCH of agents.json); returns the new head.
  virtual result<snapshot_head> put_draft_file(std::string_view ws, std::string_view app, std::string_view path,
                                               std::string_view content, std::int64_t now) = 0;

  // Records `approval` only while the draft's agents.json still hashes to `approval.hash`
  // (the payload the approver saw), replacing any earlier approval.
  virtual result<approve_outcome> approve(std::string_view ws, std::string_view app,
                                          const agents_approval& approval) = 0;
  virtual result<std::optional<agents_approval>> approval(std::string_view ws, std::string_view app) = 0;

  // Copies the draft snapshot to the published one and records the approved payload as
  // published, in one transaction, only while the draft is approved (not stale). A draft
  // without agents.json needs no approval: it is published with no publication record.
  virtual result<publish_outcome> publish(std::string_view ws, std::string_view app, std::string_view by,
                                          std::int64_t now) = 0;
  virtual result<std::optional<agents_publication>> publication(std::string_view ws, std::string_view app) = 0;

  // A pending review of the current draft (`review.draft_version` is set from it); at most one
  // pending review per app.
  virtual result<review_request_outcome> request_review(publish_review& review) = 0;
  // The app's reviews, newest first, at most `limit`.
  virtual result<std::vector<publish_review>> reviews(std::string_view ws, std::string_view app, std::size_t limit) = 0;
  // Decides a pending review in one transaction: rejecting only records it; approving publishes
  // (as publish()) only while the draft is still the reviewed version, then records it.
  virtual result<review_decision_outcome> decide_review(std::string_view ws, std::string_view app, std::string_view id,
                                                        bool approve, std::string_view by, std::string_view note,
                                                        std::int64_t now) = 0;
};

}  // namespace platform
