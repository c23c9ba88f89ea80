#include "platform/worker_routing.hpp"

#include <algorithm>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace platform {
namespace {

// FNV-1a over the app and the worker, then a finalizer so that near-equal inputs spread over
// the whole range (FNV alone leaves the high bits correlated for short keys).
std::uint64_t score(std::string_view app_id, std::string_view worker_id) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 0x100000001b3ULL;
    }
  };
  mix(app_id);
  mix(std::string_view("\0", 1));
  mix(worker_id);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

}  // namespace

std::vector<std::size_t> rank_workers(std::string_view app_id, std::span<const std::string> worker_ids,
                                      std::span<const worker_availability> availability) {
  struct entry {
    std::size_t index;
    worker_availability state;
    std::uint64_t score;
  };
  std::vector<entry> entries;
  entries.reserve(worker_ids.size());
  for (std::size_t i = 0; i < worker_ids.size(); ++i) {
    auto state = i < availability.size() ? availability[i] : worker_availability::down;
    entries.push_back({i, state, score(app_id, worker_ids[i])});
  }
  std::sort(entries.begin(), entries.end(), [](const entry& a, const entry& b) {
    if (a.state != b.state) return a.state < b.state;
    if (a.score != b.score) return a.score > b.score;
    return a.index < b.index;
  });
  std::vector<std::size_t> out;
  out.reserve(entries.size());
  for (const auto& e : entries) out.push_back(e.index);
  return out;
}

worker_availability availability_from_health(std::string_view body) {
  auto j = nlohmann::json::parse(body.begin(), body.end(), nullptr, false);
  if (!j.is_object()) return worker_availability::down;
  auto ok = j.find("ok");
  if (ok == j.end() || !ok->is_boolean() || !ok->get<bool>()) return worker_availability::down;
  auto draining = j.find("draining");
  return draining != j.end() && draining->is_boolean() && draining->get<bool>() ? worker_availability::draining
                                                                                  : worker_availability::up;
}

}  // namespace platform
