#pragma once
// Reading optional members of a parsed nlohmann JSON document (either member order).

namespace platform {

// The member `key` of `value`, or nullptr when it is missing or `value` is not an object
// (nlohmann's find() answers end() for non-objects).
template <class Json>
const Json* find_member(const Json& value, const char* key) {
  auto it = value.find(key);
  return it == value.end() ? nullptr : &*it;
}

}  // namespace platform
