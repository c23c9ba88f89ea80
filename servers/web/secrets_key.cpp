#include "secrets_key.hpp"

#include <fcntl.h>
#include <openssl/hmac.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <string>

#include "../common/env.hpp"
#include "../common/private_file.hpp"
#include "platform/api_error.hpp"

namespace platform::web {
namespace {

result<std::string> read_key_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(api_error::invalid_config, "cannot read the secrets key file " + path);
  struct stat st {};
  if (::fstat(fd, &st) == 0 && (st.st_mode & 077) != 0) {
    ::close(fd);
    return fail(api_error::invalid_config, "the secrets key file " + path + " is readable by others: chmod 600 it");
  }
  char buf[128];
  auto n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  std::string text(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// Created once: two processes starting on a fresh data dir do not both write a key; the one
// that comes second reads the first one's.
result<void> create_key_file(const std::string& path) {
  auto key = generate_secrets_key();
  if (!key) return tl::unexpected(key.error());
  auto written = servers::write_private_file(path, to_hex(*key) + "\n", servers::private_write::create_only);
  if (!written) return fail(api_error::invalid_config, "cannot write the secrets key file " + path);
  return {};
}

}  // namespace

result<secrets_key> load_secrets_key(const config& cfg) {
  std::string text = servers::env("PLATFORM_SECRETS_KEY");
  if (!text.empty()) return parse_secrets_key(text);
  if (cfg.production) return fail(api_error::invalid_config, "production mode needs PLATFORM_SECRETS_KEY (32 bytes, hex or base64)");
  std::error_code ec;
  std::filesystem::create_directories(cfg.data_dir, ec);
  const std::string path = (std::filesystem::path(cfg.data_dir) / "secrets.key").string();
  if (!std::filesystem::exists(path)) {
    if (auto made = create_key_file(path); !made) return tl::unexpected(made.error());
  }
  if (!cfg.database_url.empty()) {
    std::fprintf(stderr, "platform-web: PLATFORM_SECRETS_KEY is unset; using %s (other replicas need the same key)\n",
                 path.c_str());
  }
  auto file = read_key_file(path);
  if (!file) return tl::unexpected(file.error());
  auto key = parse_secrets_key(*file);
  if (!key) return fail(api_error::invalid_config, "the secrets key file " + path + " does not hold a 32-byte key");
  return key;
}

namespace {

// A key of its own per use, so that what signs one kind of token can sign no other.
std::string derive_key(const secrets_key& key, std::string_view label) {
  unsigned char out[32];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.bytes.data(), static_cast<int>(key.bytes.size()), reinterpret_cast<const unsigned char*>(label.data()),
       label.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

}  // namespace

std::string derive_preview_key(const secrets_key& key) { return derive_key(key, "platform preview tokens v1"); }

std::string derive_run_capability_key(const secrets_key& key) { return derive_key(key, "platform run capabilities v1"); }

std::string derive_webhook_key(const secrets_key& key) { return derive_key(key, "platform routine webhooks v1"); }

}  // namespace platform::web
