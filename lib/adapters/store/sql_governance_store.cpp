// governance_store over sql_util.hpp. Lock order in every writing transaction: the snapshot
// row first (an UPDATE, which PostgreSQL row-locks; SQLite's BEGIN IMMEDIATE locks the whole
// database), then its files, so a publish never copies a draft that is half written.
#include "sql_governance_store.hpp"
#include "platform/api_error.hpp"

#include "platform/approval_hash.hpp"
#include "sql_util.hpp"

namespace platform::sql {
namespace {

constexpr std::size_t insert_batch = 100;  // rows per INSERT: 500 parameters, under SQLite's 999

std::optional<std::string> agents_hash_of(const std::optional<std::string>& agents_json) {
  if (!agents_json) return std::nullopt;
  auto a = approval_hash_of(*agents_json);
  if (!a) return std::nullopt;
  return a->hash;
}

result<std::optional<snapshot_head>> read_head(connection& c, std::string_view ws, std::string_view app,
                                               std::string_view scope) {
  auto r = c.exec("SELECT version, agents_hash, updated_at FROM gov_snapshots "
                  "WHERE workspace_id = ? AND app_id = ? AND scope = ?", {v(ws), v(app), v(scope)});
  if (!r) return tl::unexpected(r.error());
  if (r->data.empty()) return std::optional<snapshot_head>();
  const auto& x = r->data.front();
  return std::optional<snapshot_head>(snapshot_head{to_int(x[0]), x[1], to_int(x[2])});
}

// Creates the draft row if needed and row-locks it for the rest of the transaction.
result<void> lock_draft(connection& c, std::string_view ws, std::string_view app, std::int64_t now) {
  auto made = c.exec("INSERT INTO gov_snapshots (workspace_id, app_id, scope, version, agents_hash, updated_at) "
                     "VALUES (?, ?, 'draft', 0, NULL, ?) ON CONFLICT (workspace_id, app_id, scope) DO NOTHING",
                     {v(ws), v(app), v(now)});
  if (!made) return tl::unexpected(made.error());
  auto locked = c.exec("UPDATE gov_snapshots SET version = version WHERE workspace_id = ? AND app_id = ? "
                       "AND scope = 'draft'", {v(ws), v(app)});
  if (!locked) return tl::unexpected(locked.error());
  return {};
}

result<std::optional<std::string>> read_file(connection& c, std::string_view ws, std::string_view app,
                                             std::string_view scope, std::string_view path) {
  auto r = c.exec("SELECT content FROM gov_snapshot_files WHERE workspace_id = ? AND app_id = ? AND scope = ? "
                  "AND path = ?", {v(ws), v(app), v(scope), v(path)});
  if (!r) return tl::unexpected(r.error());
  if (r->data.empty()) return std::optional<std::string>();
  return std::optional<std::string>(to_text(r->data.front()[0]));
}

result<source_files> read_files(connection& c, std::string_view ws, std::string_view app, std::string_view scope) {
  auto r = c.exec("SELECT path, content FROM gov_snapshot_files WHERE workspace_id = ? AND app_id = ? "
                  "AND scope = ?", {v(ws), v(app), v(scope)});
  if (!r) return tl::unexpected(r.error());
  source_files out;
  for (const auto& x : r->data) out.emplace(to_text(x[0]), to_text(x[1]));
  return out;
}

// Upserts `files` into the draft, a batch of rows per statement.
result<void> upsert_files(connection& c, std::string_view ws, std::string_view app,
                          const std::vector<const std::pair<const std::string, std::string>*>& files) {
  for (std::size_t at = 0; at < files.size(); at += insert_batch) {
    std::string text = "INSERT INTO gov_snapshot_files (workspace_id, app_id, scope, path, content) VALUES ";
    params p;
    for (std::size_t i = at; i < files.size() && i < at + insert_batch; ++i) {
      text += i == at ? "(?, ?, 'draft', ?, ?)" : ", (?, ?, 'draft', ?, ?)";
      p.insert(p.end(), {v(ws), v(app), v(files[i]->first), v(files[i]->second)});
    }
    text += " ON CONFLICT (workspace_id, app_id, scope, path) DO UPDATE SET content = excluded.content";
    auto r = c.exec(text, p);
    if (!r) return tl::unexpected(r.error());
  }
  return {};
}

// Bumps the draft's version and records its agents.json hash.
result<void> touch_draft(connection& c, std::string_view ws, std::string_view app,
                         const std::optional<std::string>& agents_hash, std::int64_t now) {
  auto r = c.exec("UPDATE gov_snapshots SET version = version + 1, agents_hash = ?, updated_at = ? "
                  "WHERE workspace_id = ? AND app_id = ? AND scope = 'draft'",
                  {value::of(agents_hash), v(now), v(ws), v(app)});
  if (!r) return tl::unexpected(r.error());
  return {};
}

result<snapshot_head> head_after(connection& c, std::string_view ws, std::string_view app) {
  auto h = read_head(c, ws, app, "draft");
  if (!h) return tl::unexpected(h.error());
  if (!*h) return fail(api_error::store_corrupt, "the draft snapshot vanished inside its transaction");
  return **h;
}

agents_approval approval_from(const row& x, std::size_t at) {
  return {to_text(x[at]), to_text(x[at + 1]), to_text(x[at + 2]), to_int(x[at + 3])};
}

class sql_governance_store final : public governance_store {
 public:
  explicit sql_governance_store(std::shared_ptr<backend> db) : ex_(std::move(db)) {}

  result<std::optional<snapshot_head>> head(std::string_view ws, std::string_view app, source_scope scope) override {
    std::optional<snapshot_head> out;
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      auto h = read_head(c, ws, app, to_string(scope));
      if (!h) return tl::unexpected(h.error());
      out = *h;
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return out;
  }

  result<std::optional<std::string>> snapshot_file(std::string_view ws, std::string_view app, source_scope scope,
                                                   std::string_view path) override {
    auto r = ex_.query("SELECT content FROM gov_snapshot_files WHERE workspace_id = ? AND app_id = ? AND scope = ? "
                       "AND path = ?", {v(ws), v(app), v(to_string(scope)), v(path)});
    if (!r) return tl::unexpected(r.error());
    if (r->empty()) return std::optional<std::string>();
    return std::optional<std::string>(to_text(r->front()[0]));
  }

  result<source_files> snapshot_files(std::string_view ws, std::string_view app, source_scope scope) override {
    source_files out;
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      auto f = read_files(c, ws, app, to_string(scope));
      if (!f) return tl::unexpected(f.error());
      out = std::move(*f);
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return out;
  }

  result<snapshot_head> replace_draft(std::string_view ws, std::string_view app, const source_files& files,
                                      std::int64_t now) override {
    snapshot_head out;
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      if (auto l = lock_draft(c, ws, app, now); !l) return l;
      auto old = read_files(c, ws, app, "draft");
      if (!old) return tl::unexpected(old.error());
      std::vector<const std::pair<const std::string, std::string>*> changed;
      for (const auto& f : files) {
        auto it = old->find(f.first);
        if (it == old->end() || it->second != f.second) changed.push_back(&f);
      }
      bool removed = false;
      for (const auto& [path, content] : *old) {
        if (files.count(path) != 0) continue;
        auto d = c.exec("DELETE FROM gov_snapshot_files WHERE workspace_id = ? AND app_id = ? AND scope = 'draft' "
                        "AND path = ?", {v(ws), v(app), v(path)});
        if (!d) return tl::unexpected(d.error());
        removed = true;
      }
      if (auto u = upsert_files(c, ws, app, changed); !u) return u;
      if (removed || !changed.empty()) {
        auto agents = files.find(std::string(agents_json_path));
        auto hash = agents_hash_of(agents == files.end() ? std::nullopt : std::optional<std::string>(agents->second));
        if (auto t = touch_draft(c, ws, app, hash, now); !t) return t;
      }
      auto h = head_after(c, ws, app);
      if (!h) return tl::unexpected(h.error());
      out = *h;
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return out;
  }

  result<snapshot_head> put_draft_file(std::string_view ws, std::string_view app, std::string_view path,
                                       std::string_view content, std::int64_t now) override {
    snapshot_head out;
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      if (auto l = lock_draft(c, ws, app, now); !l) return l;
      std::pair<const std::string, std::string> file{std::string(path), std::string(content)};
      if (auto u = upsert_files(c, ws, app, {&file}); !u) return u;
      result<std::optional<std::string>> agents = std::optional<std::string>(file.second);
      if (path != agents_json_path) agents = read_file(c, ws, app, "draft", agents_json_path);
      if (!agents) return tl::unexpected(agents.error());
      if (auto t = touch_draft(c, ws, app, agents_hash_of(*agents), now); !t) return t;
      auto h = head_after(c, ws, app);
      if (!h) return tl::unexpected(h.error());
      out = *h;
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return out;
  }

  result<approve_outcome> approve(std::string_view ws, std::string_view app, const agents_approval& a) override {
    // One statement: the approval row is written only if the draft still has the hash the
    // approver saw at this instant.
    auto changed = ex_.exec_changes(
        "INSERT INTO gov_approvals (workspace_id, app_id, hash, payload, approved_by, approved_at) "
        "SELECT workspace_id, app_id, ?, ?, ?, ? FROM gov_snapshots "
        "WHERE workspace_id = ? AND app_id = ? AND scope = 'draft' AND agents_hash = ? "
        "ON CONFLICT (workspace_id, app_id) DO UPDATE SET hash = excluded.hash, payload = excluded.payload, "
        "approved_by = excluded.approved_by, approved_at = excluded.approved_at",
        {v(a.hash), v(a.normalized_payload_json), v(a.approved_by), v(a.approved_at), v(ws), v(app), v(a.hash)});
    if (!changed) return tl::unexpected(changed.error());
    if (*changed == 1) return approve_outcome::approved;
    auto h = head(ws, app, source_scope::draft);
    if (!h) return tl::unexpected(h.error());
    return *h && (*h)->agents_hash ? approve_outcome::draft_changed : approve_outcome::no_draft;
  }

  result<std::optional<agents_approval>> approval(std::string_view ws, std::string_view app) override {
    auto r = ex_.query("SELECT hash, payload, approved_by, approved_at FROM gov_approvals "
                       "WHERE workspace_id = ? AND app_id = ?", {v(ws), v(app)});
    if (!r) return tl::unexpected(r.error());
    if (r->empty()) return std::optional<agents_approval>();
    return std::optional<agents_approval>(approval_from(r->front(), 0));
  }

  result<publish_outcome> publish(std::string_view ws, std::string_view app, std::string_view by,
                                  std::int64_t now) override {
    publish_outcome out = publish_outcome::published;
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      auto o = publish_in(c, ws, app, by, now);
      if (!o) return tl::unexpected(o.error());
      out = *o;
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return out;
  }

  result<std::optional<agents_publication>> publication(std::string_view ws, std::string_view app) override {
    auto r = ex_.query("SELECT hash, payload, approved_by, approved_at, published_by, published_at, snapshot_version "
                       "FROM gov_publications WHERE workspace_id = ? AND app_id = ?", {v(ws), v(app)});
    if (!r) return tl::unexpected(r.error());
    if (r->empty()) return std::optional<agents_publication>();
    const auto& x = r->front();
    return std::optional<agents_publication>(
        agents_publication{approval_from(x, 0), to_text(x[4]), to_int(x[5]), to_int(x[6])});
  }

  result<review_request_outcome> request_review(publish_review& review) override {
    review_request_outcome out = review_request_outcome::created;
    const std::string pending_key = review.workspace_id + "/" + review.app_id;
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      // The draft row first, as every writer does: its version is what the review is for.
      auto locked = c.exec("UPDATE gov_snapshots SET version = version WHERE workspace_id = ? AND app_id = ? "
                           "AND scope = 'draft'", {v(review.workspace_id), v(review.app_id)});
      if (!locked) return tl::unexpected(locked.error());
      auto draft = read_head(c, review.workspace_id, review.app_id, "draft");
      if (!draft) return tl::unexpected(draft.error());
      if (!*draft) {
        out = review_request_outcome::no_draft;
        return {};
      }
      auto pending = c.exec("SELECT 1 FROM gov_reviews WHERE pending_key = ?", {v(pending_key)});
      if (!pending) return tl::unexpected(pending.error());
      if (!pending->data.empty()) {
        out = review_request_outcome::already_pending;
        return {};
      }
      review.status = review_status::pending;
      review.draft_version = (*draft)->version;
      auto ins = c.exec("INSERT INTO gov_reviews (id, workspace_id, app_id, status, requested_by, note, draft_version, "
                        "created_at, pending_key, rollback_to) VALUES (?, ?, ?, 'pending', ?, ?, ?, ?, ?, CAST(? AS BIGINT))",
                        {v(review.id), v(review.workspace_id), v(review.app_id), v(review.requested_by), v(review.note),
                         v(review.draft_version), v(review.created_at), v(pending_key),
                         review.rollback_to ? v(*review.rollback_to) : value::null()});
      if (!ins) return tl::unexpected(ins.error());
      return {};
    });
    if (!r) {
      if (is(r.error(), api_error::store_conflict)) return review_request_outcome::already_pending;
      return tl::unexpected(r.error());
    }
    return out;
  }

  result<std::vector<publish_review>> reviews(std::string_view ws, std::string_view app, std::size_t limit) override {
    auto rows = ex_.query("SELECT id, workspace_id, app_id, status, requested_by, note, draft_version, decided_by, "
                          "decision_note, created_at, decided_at, rollback_to FROM gov_reviews WHERE workspace_id = ? AND app_id = ? "
                          "ORDER BY created_at DESC, id DESC LIMIT ?",
                          {v(ws), v(app), v(static_cast<std::int64_t>(limit))});
    if (!rows) return tl::unexpected(rows.error());
    std::vector<publish_review> out;
    for (const auto& x : *rows) {
      std::string status = to_text(x[3]);
      review_status st = status == "approved" ? review_status::approved
                         : status == "rejected" ? review_status::rejected : review_status::pending;
      out.push_back({to_text(x[0]), to_text(x[1]), to_text(x[2]), st, to_text(x[4]), to_text(x[5]), to_int(x[6]),
                     to_text(x[7]), to_text(x[8]), to_int(x[9]), to_int(x[10]),
                     x[11] ? std::optional<std::int64_t>(to_int(x[11])) : std::nullopt});
    }
    return out;
  }

  result<review_decision_outcome> decide_review(std::string_view ws, std::string_view app, std::string_view id,
                                                bool approve, std::string_view by, std::string_view note,
                                                std::int64_t now) override {
    review_decision_outcome out = review_decision_outcome::decided;
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      auto locked = c.exec("UPDATE gov_snapshots SET version = version WHERE workspace_id = ? AND app_id = ? "
                           "AND scope = 'draft'", {v(ws), v(app)});
      if (!locked) return tl::unexpected(locked.error());
      auto row = c.exec("SELECT status, draft_version, rollback_to FROM gov_reviews WHERE workspace_id = ? AND app_id = ? AND id = ?",
                        {v(ws), v(app), v(id)});
      if (!row) return tl::unexpected(row.error());
      if (row->data.empty()) {
        out = review_decision_outcome::not_found;
        return {};
      }
      if (to_text(row->data.front()[0]) != "pending") {
        out = review_decision_outcome::not_pending;
        return {};
      }
      // A rollback review's approval is only recorded here: the caller publishes the release.
      if (approve && !row->data.front()[2]) {
        auto draft = read_head(c, ws, app, "draft");
        if (!draft) return tl::unexpected(draft.error());
        if (*draft && (*draft)->version != to_int(row->data.front()[1])) {
          out = review_decision_outcome::draft_changed;
          return {};
        }
        auto published = publish_in(c, ws, app, by, now);
        if (!published) return tl::unexpected(published.error());
        switch (*published) {
          case publish_outcome::published: break;
          case publish_outcome::unapproved: out = review_decision_outcome::unapproved; return {};
          case publish_outcome::stale: out = review_decision_outcome::stale; return {};
          case publish_outcome::no_draft: out = review_decision_outcome::no_draft; return {};
        }
      }
      auto done = c.exec("UPDATE gov_reviews SET status = ?, decided_by = ?, decision_note = ?, decided_at = ?, "
                         "pending_key = NULL WHERE workspace_id = ? AND app_id = ? AND id = ? AND status = 'pending'",
                         {v(approve ? "approved" : "rejected"), v(by), v(note), v(now), v(ws), v(app), v(id)});
      if (!done) return tl::unexpected(done.error());
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return out;
  }

 private:
  // Inside the publish transaction. The draft row is locked first (approved or not), so no
  // draft write can land between the check and the copy.
  static result<publish_outcome> publish_in(connection& c, std::string_view ws, std::string_view app,
                                            std::string_view by, std::int64_t now) {
    auto locked = c.exec("UPDATE gov_snapshots SET version = version WHERE workspace_id = ? AND app_id = ? "
                         "AND scope = 'draft'", {v(ws), v(app)});
    if (!locked) return tl::unexpected(locked.error());
    if (locked->changes == 0) return publish_outcome::no_draft;
    auto draft = read_head(c, ws, app, "draft");
    if (!draft) return tl::unexpected(draft.error());
    if (!*draft) return publish_outcome::no_draft;
    auto agents = read_file(c, ws, app, "draft", agents_json_path);
    if (!agents) return tl::unexpected(agents.error());
    if (!*agents) {
      // An app without agents.json has no runtime policy to approve: its source is published
      // and it runs with no agents or tools.
      if (auto copied = copy_draft_to_published(c, ws, app, **draft, now); !copied) return tl::unexpected(copied.error());
      auto gone = c.exec("DELETE FROM gov_publications WHERE workspace_id = ? AND app_id = ?", {v(ws), v(app)});
      if (!gone) return tl::unexpected(gone.error());
      return publish_outcome::published;
    }
    auto a = c.exec("SELECT hash, payload, approved_by, approved_at FROM gov_approvals "
                    "WHERE workspace_id = ? AND app_id = ?", {v(ws), v(app)});
    if (!a) return tl::unexpected(a.error());
    if (a->data.empty()) return publish_outcome::unapproved;
    auto approved = approval_from(a->data.front(), 0);
    if (!(*draft)->agents_hash || !hashes_equal(*(*draft)->agents_hash, approved.hash)) {
      return publish_outcome::stale;
    }
    if (auto copied = copy_draft_to_published(c, ws, app, **draft, now); !copied) return tl::unexpected(copied.error());
    auto p = c.exec("INSERT INTO gov_publications (workspace_id, app_id, hash, payload, approved_by, approved_at, "
                    "published_by, published_at, snapshot_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (workspace_id, app_id) DO UPDATE SET hash = excluded.hash, payload = excluded.payload, "
                    "approved_by = excluded.approved_by, approved_at = excluded.approved_at, "
                    "published_by = excluded.published_by, published_at = excluded.published_at, "
                    "snapshot_version = excluded.snapshot_version",
                    {v(ws), v(app), v(approved.hash), v(approved.normalized_payload_json), v(approved.approved_by),
                     v(approved.approved_at), v(by), v(now), v((*draft)->version)});
    if (!p) return tl::unexpected(p.error());
    return publish_outcome::published;
  }

  static result<void> copy_draft_to_published(connection& c, std::string_view ws, std::string_view app,
                                              const snapshot_head& draft, std::int64_t now) {
    auto del = c.exec("DELETE FROM gov_snapshot_files WHERE workspace_id = ? AND app_id = ? AND scope = 'published'",
                      {v(ws), v(app)});
    if (!del) return tl::unexpected(del.error());
    auto copy = c.exec("INSERT INTO gov_snapshot_files (workspace_id, app_id, scope, path, content) "
                       "SELECT workspace_id, app_id, 'published', path, content FROM gov_snapshot_files "
                       "WHERE workspace_id = ? AND app_id = ? AND scope = 'draft'", {v(ws), v(app)});
    if (!copy) return tl::unexpected(copy.error());
    // The published version follows the draft version it copied: a reader can tell which
    // draft is live.
    auto row = c.exec("INSERT INTO gov_snapshots (workspace_id, app_id, scope, version, agents_hash, updated_at) "
                      "VALUES (?, ?, 'published', ?, ?, ?) ON CONFLICT (workspace_id, app_id, scope) DO UPDATE SET "
                      "version = excluded.version, agents_hash = excluded.agents_hash, updated_at = excluded.updated_at",
                      {v(ws), v(app), v(draft.version), value::of(draft.agents_hash), v(now)});
    if (!row) return tl::unexpected(row.error());
    return {};
  }

  executor ex_;
};

}  // namespace

std::unique_ptr<governance_store> make_governance_store(std::shared_ptr<backend> db) {
  return std::make_unique<sql_governance_store>(std::move(db));
}

}  // namespace platform::sql
