#include "platform/git_bundle.hpp"

#include <openssl/evp.h>

#include <array>
#include <set>

namespace platform {
namespace {

std::string sha1_raw(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), digest.data(), &size, EVP_sha1(), nullptr);
  return std::string(reinterpret_cast<const char*>(digest.data()), size);
}

std::string hex_of(std::string_view raw) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) out += digits[c >> 4], out += digits[c & 15];
  return out;
}

std::string object_bytes(std::string_view type, std::string_view content) {
  return std::string(type) + " " + std::to_string(content.size()) + '\0' + std::string(content);
}

// zlib's wrapping of stored (uncompressed) deflate blocks, with its Adler-32 check.
std::string zlib_stored(std::string_view data) {
  std::string out = "\x78\x01";
  std::size_t at = 0;
  do {
    const std::size_t n = std::min<std::size_t>(data.size() - at, 65535);
    const bool last = at + n == data.size();
    out.push_back(last ? '\x01' : '\x00');
    out.push_back(static_cast<char>(n & 0xff));
    out.push_back(static_cast<char>(n >> 8));
    out.push_back(static_cast<char>(~n & 0xff));
    out.push_back(static_cast<char>((~n >> 8) & 0xff));
    out.append(data.substr(at, n));
    at += n;
  } while (at < data.size());
  std::uint32_t a = 1, b = 0;
  for (unsigned char c : data) a = (a + c) % 65521, b = (b + a) % 65521;
  const std::uint32_t adler = (b << 16) | a;
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((adler >> shift) & 0xff));
  return out;
}

enum pack_type : unsigned { pack_commit = 1, pack_tree = 2, pack_blob = 3 };

// Writes objects once each (by name) into a pack body and remembers their count.
struct pack_writer {
  std::string body;
  std::set<std::string> written;
  std::uint32_t count = 0;

  // The object's raw SHA-1 name.
  std::string add(pack_type type, std::string_view type_name, std::string_view content) {
    std::string raw = sha1_raw(object_bytes(type_name, content));
    if (!written.insert(raw).second) return raw;
    std::size_t size = content.size();
    unsigned char first = static_cast<unsigned char>((type << 4) | (size & 15));
    size >>= 4;
    if (size) first |= 0x80;
    body.push_back(static_cast<char>(first));
    while (size) {
      unsigned char next = size & 0x7f;
      size >>= 7;
      if (size) next |= 0x80;
      body.push_back(static_cast<char>(next));
    }
    body += zlib_stored(content);
    ++count;
    return raw;
  }
};

struct dir_node {
  std::map<std::string, std::string> files;  // name -> content
  std::map<std::string, dir_node> dirs;
};

// The tree of one directory, its subtrees and blobs first; the raw name of the tree.
std::string write_tree(pack_writer& pack, const dir_node& dir) {
  // git orders entries by name, a directory's name compared as if it ended in '/'.
  std::map<std::string, std::string> entries;  // sort key -> "<mode> <name>\0<raw>"
  for (const auto& [name, content] : dir.files) {
    entries[name] = "100644 " + name + '\0' + pack.add(pack_blob, "blob", content);
  }
  for (const auto& [name, sub] : dir.dirs) entries[name + "/"] = "40000 " + name + '\0' + write_tree(pack, sub);
  std::string tree;
  for (const auto& [key, entry] : entries) tree += entry;
  return pack.add(pack_tree, "tree", tree);
}

std::string one_line(std::string_view s) {
  std::string out;
  for (char c : s) out += (c == '\n' || c == '<' || c == '>') ? ' ' : c;
  return out;
}

}  // namespace

std::string git_object_id(std::string_view type, std::string_view content) { return hex_of(sha1_raw(object_bytes(type, content))); }

std::string git_bundle(const std::vector<git_commit_input>& commits) {
  if (commits.empty()) return {};
  pack_writer pack;
  std::string parent;
  for (const auto& c : commits) {
    dir_node root;
    for (const auto& [path, content] : c.files) {
      dir_node* at = &root;
      std::size_t from = 0;
      for (std::size_t slash; (slash = path.find('/', from)) != std::string::npos; from = slash + 1) {
        at = &at->dirs[path.substr(from, slash - from)];
      }
      at->files[path.substr(from)] = content;
    }
    const std::string tree = write_tree(pack, root);
    const std::string who = one_line(c.author_name) + " <" + one_line(c.author_email) + "> " + std::to_string(c.unix_seconds) + " +0000";
    std::string commit = "tree " + hex_of(tree) + "\n";
    if (!parent.empty()) commit += "parent " + hex_of(parent) + "\n";
    commit += "author " + who + "\ncommitter " + who + "\n\n" + c.message;
    if (commit.back() != '\n') commit += '\n';
    parent = pack.add(pack_commit, "commit", commit);
  }
  std::string packed = "PACK";
  for (std::uint32_t v : {std::uint32_t{2}, pack.count}) {
    for (int shift = 24; shift >= 0; shift -= 8) packed.push_back(static_cast<char>((v >> shift) & 0xff));
  }
  packed += pack.body;
  packed += sha1_raw(packed);
  return "# v2 git bundle\n" + hex_of(parent) + " refs/heads/main\n" + hex_of(parent) + " HEAD\n\n" + packed;
}

}  // namespace platform
