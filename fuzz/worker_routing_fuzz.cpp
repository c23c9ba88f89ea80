// A worker's /health answer and the app order on arbitrary bytes. Contract: never crashes or
// throws; the order is a permutation of the workers with every worker that is up ahead of
// every other, the same on every call.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "platform/worker_routing.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto state = platform::availability_from_health(text);
  // The first line is the app id; each further line a worker id, the first one taking the
  // state the health answer gave, the others up, draining, down in turn.
  std::vector<std::string> ids;
  std::vector<platform::worker_availability> states;
  std::size_t pos = text.find('\n');
  std::string_view app = text.substr(0, pos);
  while (pos != std::string_view::npos && ids.size() < 64) {
    std::size_t end = text.find('\n', pos + 1);
    ids.emplace_back(text.substr(pos + 1, end == std::string_view::npos ? std::string_view::npos : end - pos - 1));
    states.push_back(ids.size() == 1 ? state : static_cast<platform::worker_availability>(ids.size() % 3));
    pos = end;
  }
  auto order = platform::rank_workers(app, ids, states);
  check(order == platform::rank_workers(app, ids, states));
  auto sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) check(sorted[i] == i);
  check(order.size() == ids.size());
  for (std::size_t i = 1; i < order.size(); ++i) check(states[order[i - 1]] <= states[order[i]]);
  return 0;
}
