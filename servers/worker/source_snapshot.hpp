#pragma once
// The builder workspace as text, for the web server's draft source snapshot (which must follow
// every edit the builder, a file edit or a shell command makes), and single-file writes from
// the web (a user's PATCH of agents.json reaches the workspace the builder works in).
//   GET /sessions/{appId}/source-snapshot  -> {files: {path: content}, fileCount, totalBytes, skipped}
//   PUT /sessions/{appId}/files            {path, content} -> {ok, path, bytes}
//   PUT /sessions/{appId}/source           {files: {path: content}} -> {ok, written, removed, digest}
// All take the internal token. PUT source makes the files the workspace's whole source (the
// app's draft, when its workspace here is missing or stale): text files the snapshot would
// show and the set does not hold are removed; node_modules, dist, .git and binaries stay.
#include <httplib.h>

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "platform/error.hpp"
#include "worker_config.hpp"

namespace platform::worker {

// Snapshot bounds: past either, the snapshot is refused (413 snapshot_too_large), never cut.
inline constexpr std::size_t snapshot_max_files = 5000;
inline constexpr std::size_t snapshot_max_bytes = 32u << 20;
inline constexpr std::size_t put_file_max_bytes = 8u << 20;

// GET /sessions/{appId}/source-snapshot, PUT /sessions/{appId}/files, PUT /sessions/{appId}/source.
void get_snapshot(const config& cfg, const std::string& app_id, httplib::Response& res);
void put_file(const config& cfg, const std::string& app_id, const nlohmann::json& body, httplib::Response& res);
void put_source(const config& cfg, const std::string& app_id, const nlohmann::json& body, httplib::Response& res);

// What a builder turn changed, as a fingerprint of the workspace's files: each one's path,
// size and modification time, walked like the snapshot (no node_modules, dist or .git) and
// without the bundler's cache. Equal fingerprints before and after a turn: it wrote nothing
// (spec "Builder run": only an implementation that wrote files needs done_building). Empty
// when the workspace cannot be read.
std::string workspace_fingerprint(const std::string& dir);

// source_digest of the workspace's snapshot, or nullopt when it cannot be taken (missing, too
// large). Read again only when the workspace's fingerprint changed since the last call.
std::optional<std::string> workspace_source_digest(const std::string& dir);

}  // namespace platform::worker
