#include "platform/builder_run.hpp"

namespace platform {

std::string_view to_string(run_status s) {
  switch (s) {
    case run_status::pending: return "pending";
    case run_status::streaming: return "streaming";
    case run_status::completed: return "completed";
    case run_status::failed: return "failed";
  }
  return "failed";
}

std::optional<run_status> run_status_from(std::string_view s) {
  if (s == "pending") return run_status::pending;
  if (s == "streaming") return run_status::streaming;
  if (s == "completed") return run_status::completed;
  if (s == "failed") return run_status::failed;
  return std::nullopt;
}

std::string_view to_string(claim_outcome c) {
  switch (c) {
    case claim_outcome::claimed: return "claimed";
    case claim_outcome::duplicate: return "duplicate";
    case claim_outcome::stale: return "stale";
    case claim_outcome::not_found: return "not_found";
  }
  return "not_found";
}

claim_outcome classify_claim(run_status current, std::int64_t persisted_messages, std::int64_t incoming_messages) {
  switch (current) {
    case run_status::pending:
      return claim_outcome::claimed;
    case run_status::streaming:
      return claim_outcome::duplicate;
    case run_status::completed:
    case run_status::failed:
      return incoming_messages > persisted_messages ? claim_outcome::claimed : claim_outcome::stale;
  }
  return claim_outcome::stale;
}

run_status turn_end_status(const turn_evidence& e) {
  if (e.errored || e.stopped_by_user) return run_status::failed;
  if (e.approval_stop || e.done_building_succeeded || !e.wrote_files) return run_status::completed;
  return run_status::failed;
}

}  // namespace platform
