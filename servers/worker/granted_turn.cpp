#include "granted_turn.hpp"

#include <nlohmann/json.hpp>

#include "platform/worker_message.hpp"

namespace platform::worker {

namespace {

// A worker message reporting a tool result that carries an approval card: present_plan and
// present_agents answer with `"status":"awaiting_approval"` (builder_tools.cpp).
bool approval_card_result(const std::string& line) {
  return line.find("\"tool_result\"") != std::string::npos && line.find("awaiting_approval") != std::string::npos;
}

// What the stopped turn used goes with it, as on any result line (`platform_turn_usage`).
std::string approval_stop_result(const std::optional<provider_session_state>& s,
                                 const std::optional<run_usage>& usage) {
  nlohmann::json r = {{"type", "result"}, {"subtype", "success"}, {"is_error", false}, {"result", ""},
                      {"stop_reason", "approval_stop"}, {"num_turns", 1}};
  if (s) r["session_id"] = s->session_id;
  std::string line = r.dump();
  if (usage) worker_message::add_turn_usage(line, *usage);
  return line;
}

std::string not_connected_error() {
  return nlohmann::json({{"type", "error"},
                         {"error", "The runtime did not connect to the platform's tool broker, so its tools were "
                                   "unavailable this turn."}})
      .dump();
}

}  // namespace

bool granted_turn::next(std::string& line) {
  if (queued_) {
    line = std::move(*queued_);
    queued_.reset();
    return true;
  }
  if (done_ || !turn_->next(line)) {
    // The turn is over: its grant ends now, not when the route drops the turn after the
    // response's [DONE], so a request sent after the turn's end never finds it live.
    done_ = true;
    lease_.reset();
    return false;
  }
  if (lease_ && lease_->context().stop_requested.load() && approval_card_result(line)) {
    turn_->stop();
    done_ = stopped_ = true;
    queued_ = approval_stop_result(turn_->session(), turn_->stopped_usage());
    return true;
  }
  if (lease_ && !lease_->access().servers.empty() && !result_checked_ && turn_->result_seen()) {
    result_checked_ = true;
    if (!lease_->connected()) {
      queued_ = std::move(line);
      line = not_connected_error();
    }
  }
  return true;
}

}  // namespace platform::worker
