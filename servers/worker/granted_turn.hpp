#pragma once
// A runtime turn together with its broker grant: what the worker's routes read worker
// messages from. It enforces the two broker rules a runtime cannot be trusted with: an
// approval stop ends the turn right after the card's tool result (spec "Approval stops"), and
// a turn whose runtime never connected to the broker fails instead of silently running
// without its tools (Codex drops a broker that refused it without a word).
#include <memory>
#include <optional>
#include <string>

#include "broker.hpp"
#include "runtime_turn.hpp"

namespace platform::worker {

class granted_turn {
 public:
  granted_turn(std::unique_ptr<runtime_turn> turn, std::unique_ptr<broker_lease> lease)
      : turn_(std::move(turn)), lease_(std::move(lease)) {}

  bool next(std::string& line);
  [[nodiscard]] bool result_seen() const { return stopped_ || turn_->result_seen(); }
  [[nodiscard]] bool approval_stopped() const { return stopped_; }
  [[nodiscard]] std::optional<provider_session_state> session() const { return turn_->session(); }
  int exit_code() { return turn_->exit_code(); }
  void interrupt() const { turn_->interrupt(); }
  [[nodiscard]] bool interrupted() const { return turn_->interrupted(); }
  // Null once next() has reported the end of the turn: the grant ends with the turn.
  [[nodiscard]] broker_lease* lease() const { return lease_.get(); }

 private:
  std::unique_ptr<runtime_turn> turn_;
  std::unique_ptr<broker_lease> lease_;
  std::optional<std::string> queued_;
  bool done_ = false;
  bool stopped_ = false;
  bool result_checked_ = false;
};

}  // namespace platform::worker
