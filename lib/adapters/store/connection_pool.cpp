// A fixed set of connections lent one at a time. A connection that failed with
// store_unavailable is replaced (lazily, by `reconnect`) and the transaction is retried once,
// so a database restart costs one failed attempt at most per connection, not an outage.
#include <condition_variable>
#include <mutex>

#include "sql.hpp"
#include "platform/api_error.hpp"

namespace platform::sql {
namespace {

class pool final : public backend {
 public:
  pool(std::vector<std::unique_ptr<connection>> conns,
       std::function<result<std::unique_ptr<connection>>()> reconnect)
      : reconnect_(std::move(reconnect)), idle_(std::move(conns)) {}

  result<void> with_connection(const std::function<result<void>(connection&)>& fn) override {
    for (int attempt = 0;; ++attempt) {
      auto lease = acquire();
      if (!lease) return tl::unexpected(lease.error());
      auto r = fn(**lease);
      bool broken = !r && is(r.error(), api_error::store_unavailable);
      release(broken ? nullptr : std::move(*lease));
      if (!broken || attempt == 1) return r;
    }
  }

 private:
  result<std::unique_ptr<connection>> acquire() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !idle_.empty(); });
    auto c = std::move(idle_.back());
    idle_.pop_back();
    if (c) return c;
    lock.unlock();
    auto fresh = reconnect_();
    if (!fresh) release(nullptr);  // keep the slot for a later attempt
    return fresh;
  }

  // nullptr marks a slot whose connection must be re-established before use.
  void release(std::unique_ptr<connection> c) {
    {
      std::lock_guard lock(mu_);
      idle_.push_back(std::move(c));
    }
    cv_.notify_one();
  }

  std::function<result<std::unique_ptr<connection>>()> reconnect_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<connection>> idle_;
};

}  // namespace

std::unique_ptr<backend> make_pool(std::vector<std::unique_ptr<connection>> connections,
                                   std::function<result<std::unique_ptr<connection>>()> reconnect) {
  return std::make_unique<pool>(std::move(connections), std::move(reconnect));
}

}  // namespace platform::sql
