// getaddrinfo has no timeout of its own (resolv.conf's attempts times timeouts can exceed the
// whole action budget), so it runs on a detached thread that owns its state; the caller waits
// at most its budget and leaves a late answer to be dropped.
#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "adapters/http_executor.hpp"
#include "platform/api_error.hpp"

namespace platform {
namespace {

struct lookup {
  std::mutex m;
  std::condition_variable cv;
  bool finished = false;
  int status = 0;
  std::vector<ip_address> addresses;
};

std::optional<ip_address> from_sockaddr(const sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    const auto* sin = reinterpret_cast<const sockaddr_in*>(sa);
    ip_address a;
    std::memcpy(a.bytes.data(), &sin->sin_addr, 4);
    return a;
  }
  if (sa->sa_family == AF_INET6) {
    const auto* sin6 = reinterpret_cast<const sockaddr_in6*>(sa);
    std::array<std::uint8_t, 16> b{};
    std::memcpy(b.data(), &sin6->sin6_addr, 16);
    return ip_address::v6(b);
  }
  return std::nullopt;
}

void run_lookup(const std::shared_ptr<lookup>& state, const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  int status = ::getaddrinfo(host.c_str(), nullptr, &hints, &list);
  std::vector<ip_address> found;
  for (addrinfo* ai = list; status == 0 && ai != nullptr; ai = ai->ai_next) {
    auto a = from_sockaddr(ai->ai_addr);
    if (a && std::find(found.begin(), found.end(), *a) == found.end()) found.push_back(*a);
  }
  if (list != nullptr) ::freeaddrinfo(list);
  std::lock_guard lock(state->m);
  state->finished = true;
  state->status = status;
  state->addresses = std::move(found);
  state->cv.notify_all();
}

}  // namespace

result<std::vector<ip_address>> system_resolve(const std::string& host, std::chrono::milliseconds budget) {
  auto state = std::make_shared<lookup>();
  try {
    std::thread([state, host] { run_lookup(state, host); }).detach();
  } catch (const std::system_error&) {
    return fail(api_error::dns_failed, "could not start a resolver thread");
  }
  std::unique_lock lock(state->m);
  if (!state->cv.wait_for(lock, budget, [&] { return state->finished; })) {
    return fail(api_error::timeout, "resolving " + host + " took too long");
  }
  if (state->status != 0) return fail(api_error::dns_failed, "cannot resolve " + host + ": " + ::gai_strerror(state->status));
  if (state->addresses.empty()) return fail(api_error::dns_failed, "cannot resolve " + host + ": no addresses");
  return state->addresses;
}

}  // namespace platform
