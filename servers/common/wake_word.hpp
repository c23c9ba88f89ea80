#pragma once
// A word to sleep on until it changes: a Linux futex with a timeout. A stream's followers wait
// for its next append here rather than on a condition variable, because a thread woken from
// pthread_cond_wait takes its mutex back marked contended, and its next unlock then makes a
// futex call whether or not anyone waits: at 10,000 chunks a second that call alone was a
// sixth of platform-web's time. With this word the data's mutex is only ever held briefly, by
// readers and the writer, and sleeping and waking cost a system call only when someone sleeps.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <ctime>

namespace platform::servers {

class wake_word {
 public:
  [[nodiscard]] std::uint32_t current() const { return word_.load(); }

  // Sleeps while the word is still `seen`, up to `timeout`; may return early (a change, a
  // signal). Callers look again and loop.
  void wait(std::uint32_t seen, std::chrono::nanoseconds timeout) const {
    if (timeout <= std::chrono::nanoseconds::zero()) return;
    auto s = std::chrono::duration_cast<std::chrono::seconds>(timeout);
    timespec ts{static_cast<time_t>(s.count()), static_cast<long>((timeout - s).count())};
    sleepers_.fetch_add(1);
    // The kernel compares the word with `seen` under its own lock: a bump since then returns
    // at once, and one after it wakes us (the bumper sees `sleepers_` counted).
    if (word_.load() == seen) syscall(SYS_futex, address(), FUTEX_WAIT_PRIVATE, seen, &ts, nullptr, 0);
    sleepers_.fetch_sub(1);
  }

  // Changes the word and wakes everyone asleep on it.
  void bump() {
    word_.fetch_add(1);
    if (sleepers_.load() > 0) syscall(SYS_futex, address(), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
  }

 private:
  std::uint32_t* address() const { return reinterpret_cast<std::uint32_t*>(&word_); }

  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t) && std::atomic<std::uint32_t>::is_always_lock_free);
  mutable std::atomic<std::uint32_t> word_{0};
  mutable std::atomic<int> sleepers_{0};
};

}  // namespace platform::servers
