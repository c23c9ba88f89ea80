#pragma once
// Unguessable names and tokens of the worker's (broker tokens, a jail's placeholder and its
// directory): `bytes` from OpenSSL's generator as lowercase hex; empty when it fails.
#include <openssl/rand.h>

#include <string>
#include <vector>

namespace platform::worker {

inline std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> b(bytes);
  if (bytes == 0 || RAND_bytes(b.data(), static_cast<int>(b.size())) != 1) return {};
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes * 2);
  for (unsigned char c : b) {
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

}  // namespace platform::worker
