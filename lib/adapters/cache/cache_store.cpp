#include "adapters/cache_store.hpp"

namespace platform {

// A stream has one producer, so after its first event is taken the rest can fail only as the
// first would have (the stream gone or complete), which no one else does meanwhile.
std::vector<result<std::uint64_t>> cache_store::append_batch(std::span<const stream_append> appends) {
  std::vector<result<std::uint64_t>> out;
  out.reserve(appends.size());
  for (const auto& a : appends) {
    result<std::uint64_t> first = fail(api_error::invalid_request, "an append without events");
    for (std::size_t i = 0; i < a.events.size(); ++i) {
      auto r = append(a.stream_id, a.events[i]);
      if (i == 0 || !r) first = std::move(r);
      if (!first) break;
    }
    out.push_back(std::move(first));
  }
  return out;
}

}  // namespace platform
