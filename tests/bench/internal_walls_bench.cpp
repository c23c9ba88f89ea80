// What the new walls cost per call, in the core (no I/O): checking a run capability (HMAC-SHA256
// of the tuple and a constant-time compare) on each internal call, and the internet door's
// reading of a CONNECT head with its address rule on each connection. A store read of the run's
// state comes beside the capability on the web; it is measured with the store, not here.
//
//   bench_internal_walls [iterations]
//
// Prints min / median / max ns per call over 9 rounds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "platform/internet_door.hpp"
#include "platform/run_capability.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

template <class F>
void report(const char* what, int n, F&& once) {
  std::vector<double> ns;
  for (int round = 0; round < 9; ++round) {
    auto t0 = clock_type::now();
    for (int i = 0; i < n; ++i) once(i);
    ns.push_back(std::chrono::duration<double, std::nano>(clock_type::now() - t0).count() / n);
  }
  std::sort(ns.begin(), ns.end());
  std::printf("%s: %.0f / %.0f / %.0f ns per call\n", what, ns.front(), ns[ns.size() / 2], ns.back());
}

}  // namespace

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 100000;
  const std::string key(32, '\x2a');
  const platform::run_tuple run{platform::run_kind::agent_run, "ws-0123456789", "app-0123456789abcdef", "run-0123456789abcdef"};
  const std::string cap = platform::run_capability(key, run);
  std::size_t ok = 0;
  report("run capability verify", n, [&](int) { ok += platform::verify_run_capability(key, cap, run).has_value(); });
  const std::string head = "CONNECT registry.npmjs.org:443 HTTP/1.1\r\nHost: registry.npmjs.org:443\r\nUser-Agent: npm/11\r\n\r\n";
  const std::vector<platform::ip_address> resolved = {platform::ip_address::v4(0x68101ee3), platform::ip_address::v4(0x0a000001)};
  const platform::address_allow_list none;
  report("internet door CONNECT read + address rule", n, [&](int) {
    auto t = platform::parse_connect_head(head);
    if (t) ok += platform::internet_door_addresses(*t, resolved, none).has_value();
  });
  if (ok != static_cast<std::size_t>(n) * 18) std::printf("unexpected refusals: %zu of %d\n", static_cast<std::size_t>(n) * 18 - ok, n * 18);
  return 0;
}
