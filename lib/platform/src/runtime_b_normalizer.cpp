// runtime-b (codex `app-server`, JSON-RPC over stdio) → worker messages. The mapping, with
// examples, is in docs/runtime-b.md; the captured transcripts and what each must become are
// in tests/data/fixtures/runtime-b/ (README in shared/fixtures/runtime-b/).
//
// Input lines are JSON-RPC messages as the app-server prints them, or the capture form
// `{"seq","conn","dir":"c2s"|"s2c","tMs","msg":{...}}` that also holds the client's side.
// Codex reports items (agentMessage, reasoning, commandExecution, fileChange, mcpToolCall,
// webSearch) with started → deltas → completed; each becomes a content block of a streamed
// assistant message. One message spans one model response: codex reports token usage after
// every response, so `thread/tokenUsage/updated` ends the message.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <optional>
#include <unordered_set>
#include <vector>

#include <simdjson.h>

#include "dom_json.hpp"
#include "json_string_bytes.hpp"
#include "platform/json_text.hpp"
#include "platform/worker_message.hpp"
#include "normalizer_bounds.hpp"
#include "runtime_normalizers.hpp"

namespace platform {
namespace {

namespace wm = worker_message;
namespace dom = simdjson::dom;

// max_line_bytes is not lower: a `thread/resume` answer holds the whole hydrated history.
using normalizer_bounds::max_line_bytes;
using normalizer_bounds::max_block_index;
using normalizer_bounds::kept_parser_capacity;
// Preliminary command output shows at most this tail; the final result has everything.
constexpr std::size_t output_tail_bytes = 16u << 10;
// A preliminary update is written once the new bytes reach 1/16 of what it would repeat, so
// the chunks written stay within ~16x the command's output however finely it is split.
constexpr std::size_t output_repeat_factor = 16;
// agentMessage text kept to reconcile deltas with the completed item.
constexpr std::size_t max_tracked_text = 1u << 20;
// fileChange results repeat the item's change list per file up to this many bytes in all.
constexpr std::size_t max_repeated_list_bytes = 1u << 20;
// Bounds on what is remembered at once.
constexpr std::size_t max_open_blocks = 64;
constexpr std::size_t max_running_items = 1024;
constexpr std::size_t max_web_results = 256;
constexpr std::size_t max_pending_requests = 256;
constexpr std::size_t max_ended_turns = 8;
constexpr std::size_t max_turn_messages = 4096;
constexpr std::size_t max_turn_tools = 8192;

constexpr std::string_view interrupted_text = "Interrupted: the turn ended before this call finished.";
constexpr std::string_view restarted_text = "The runtime process restarted before this call finished.";
constexpr std::string_view stopped_text = "The runtime stopped before this call finished.";

// ---- reading ---------------------------------------------------------------------------

// A member of an object, or nothing when it is missing.
using member = std::optional<dom::element>;

// The first member `key` (not empty) of object `e`, as e[key] reads it, with short keys
// compared in place.
member at(dom::element e, std::string_view key) {
  dom::object o;
  if (e.get_object().get(o)) return std::nullopt;
  for (auto field : o) {
    if (same_key(field.key, key)) return field.value;
  }
  return std::nullopt;
}

// The members `keys` of object `e` in one pass; a repeated key counts once, with its first
// value, as e[key] reads it.
template <std::size_t N>
std::array<member, N> members(dom::element e, const std::string_view (&keys)[N]) {
  dom::object o;
  if (e.get_object().get(o)) return {};
  return pick_members<repeated_key::first>(o, keys);
}

std::string_view str_of(const member& m) {
  std::string_view s;
  if (!m || m->get_string().get(s)) return {};
  return s;
}

bool obj_of(const member& m, dom::element& out) {
  if (!m || !m->is_object()) return false;
  out = *m;
  return true;
}

std::optional<std::int64_t> int_of(const member& m) {
  if (!m) return std::nullopt;
  std::int64_t i = 0;
  if (!m->get_int64().get(i)) return i;
  double d = 0;
  if (!m->get_double().get(d) && d >= -9e15 && d <= 9e15) return static_cast<std::int64_t>(d);
  return std::nullopt;
}

std::string_view str_at(dom::element e, std::string_view key) { return str_of(at(e, key)); }
bool obj_at(dom::element e, std::string_view key, dom::element& out) { return obj_of(at(e, key), out); }
std::optional<std::int64_t> int_at(dom::element e, std::string_view key) { return int_of(at(e, key)); }

// A token count: negative or absurd values count as zero or saturate.
std::int64_t count_at(dom::element e, std::string_view key) {
  constexpr std::int64_t cap = std::numeric_limits<std::int64_t>::max() / 8;
  std::uint64_t u = 0;
  if (!e[key].get_uint64().get(u)) return u > static_cast<std::uint64_t>(cap) ? cap : static_cast<std::int64_t>(u);
  auto i = int_at(e, key);
  return i && *i > 0 ? std::min(*i, cap) : 0;
}

// Compact JSON text of a value (simdjson escapes control characters, so it is one line).
std::string json_of(dom::element e) { return dom_json::minified(e); }

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

// A JSON-RPC id as a map key (numbers and strings never collide). An integer is written as
// json_of would print it, without building the printer.
std::string id_key(dom::element id) {
  std::string_view s;
  if (!id.get_string().get(s)) return "s:" + std::string(s);
  std::int64_t i = 0;
  if (!id.get_int64().get(i)) {
    char digits[24] = {'n', ':'};
    return std::string(digits, std::to_chars(digits + 2, digits + sizeof digits, i).ptr);
  }
  return "n:" + json_of(id);
}

// The notifications on_notification acts on, by method; `hidden` ones are not shown. Every
// `item/` method takes part in the turn (item_other: only that).
enum class notification : unsigned char {
  hidden, thread_started, turn_started, turn_completed, token_usage, error,
  item_started, item_completed, item_text_delta, item_summary_delta, item_reasoning_delta, item_output_delta,
  item_other,
};

notification notification_of(std::string_view method) {
  static constexpr std::pair<std::string_view, notification> shown[] = {
      {"item/agentMessage/delta", notification::item_text_delta},
      {"item/started", notification::item_started},
      {"item/completed", notification::item_completed},
      {"item/reasoning/summaryTextDelta", notification::item_summary_delta},
      {"item/reasoning/textDelta", notification::item_reasoning_delta},
      {"item/commandExecution/outputDelta", notification::item_output_delta},
      {"thread/tokenUsage/updated", notification::token_usage},
      {"thread/started", notification::thread_started},
      {"turn/started", notification::turn_started},
      {"turn/completed", notification::turn_completed},
      {"error", notification::error},
  };
  for (const auto& [name, kind] : shown) {
    if (same_key(method, name)) return kind;
  }
  bool item = method.size() >= 5 && std::memcmp(method.data(), "item/", 5) == 0;
  return item ? notification::item_other : notification::hidden;
}

// The start of a line in the capture form, as the capture writes it:
// {"seq":N,"conn":N,"dir":"s2c"|"c2s","tMs":N,"msg":{ — valid JSON as far as it goes; the
// rest is not read.
struct capture_head {
  std::int64_t conn = 0;
  bool from_server = false;
  std::string_view msg;     // from the message's first member on
  std::string_view method;  // when that member is "method": its value (without escapes)
};

bool read_capture_head(std::string_view text, capture_head& h) {
  raw_reader r(text);
  std::int64_t n = 0;
  if (!r.literal(R"({"seq":)") || !r.integer(n) || !r.literal(R"(,"conn":)") || !r.integer(h.conn) ||
      !r.literal(R"(,"dir":")")) {
    return false;
  }
  if (r.literal("s2c")) h.from_server = true;
  else if (!r.literal("c2s")) return false;
  if (!r.literal(R"(","tMs":)") || !r.integer(n) || !r.literal(R"(,"msg":{)")) return false;
  h.msg = r.rest();
  h.method = {};
  if (r.literal(R"("method":)") && !r.string(h.method)) h.method = {};
  return true;
}

// A parser one level shallower than the default (1024 levels), for a capture line's message
// parsed alone: it refuses exactly the messages whose whole line the default parser refuses.
// Out of memory, it allocates again at its first parse, with the default depth.
dom::parser message_parser() {
  dom::parser p;
  [[maybe_unused]] simdjson::error_code error = p.allocate(4096, simdjson::DEFAULT_MAX_DEPTH - 1);
  return p;
}

// ---- writing ---------------------------------------------------------------------------

class object_writer {
 public:
  object_writer& str(std::string_view key, std::string_view value) {
    this->key(key);
    append_json_string(s_, value);
    return *this;
  }
  object_writer& raw(std::string_view key, std::string_view json) {
    this->key(key);
    s_.append(json);
    return *this;
  }
  object_writer& num(std::string_view key, std::int64_t value) {
    this->key(key);
    char digits[24];
    s_.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
    return *this;
  }
  std::string done() {
    s_.push_back('}');
    return std::move(s_);
  }

 private:
  void key(std::string_view k) {
    if (s_.size() > 1) s_.push_back(',');
    append_json_string(s_, k);
    s_.push_back(':');
  }
  std::string s_ = "{";
};

// ---- commands --------------------------------------------------------------------------

// One shell word with POSIX quoting removed; nullopt when `s` is not exactly one word.
std::optional<std::string> single_shell_word(std::string_view s) {
  std::string word;
  std::size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '\'') {
      std::size_t end = s.find('\'', i + 1);
      if (end == std::string_view::npos) return std::nullopt;
      word.append(s.substr(i + 1, end - i - 1));
      i = end + 1;
    } else if (c == '"') {
      for (++i; i < s.size() && s[i] != '"'; ++i) {
        if (s[i] == '\\' && i + 1 < s.size() && std::strchr("\\\"$`\n", s[i + 1]) != nullptr) ++i;
        word.push_back(s[i]);
      }
      if (i >= s.size()) return std::nullopt;
      ++i;
    } else if (c == '\\') {
      if (i + 1 >= s.size()) return std::nullopt;
      word.push_back(s[i + 1]);
      i += 2;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      return std::nullopt;
    } else {
      word.push_back(c);
      ++i;
    }
  }
  if (word.empty()) return std::nullopt;
  return word;
}

// The script of codex's display form `/bin/bash -lc '<script>'`; nullopt for anything else.
std::optional<std::string> unwrap_shell(std::string_view command) {
  constexpr std::string_view wrappers[] = {"/bin/bash -lc ", "/bin/bash -c ", "bash -lc ", "bash -c ",
                                           "/bin/zsh -lc ",  "/bin/sh -c ",   "sh -c "};
  for (std::string_view w : wrappers) {
    if (starts_with(command, w)) return single_shell_word(command.substr(w.size()));
  }
  return std::nullopt;
}

// What the Bash card shows as the command: the script without codex's shell wrapper.
std::string bash_command(dom::element item) {
  std::string_view command = str_at(item, "command");
  if (auto script = unwrap_shell(command)) return *script;
  dom::array actions;
  if (!item["commandActions"].get_array().get(actions) && actions.size() == 1) {
    std::string_view c = str_at(actions.at(0).value_unsafe(), "command");
    if (!c.empty()) return std::string(c);
  }
  return std::string(command);
}

// First byte at or after `pos` that starts a UTF-8 sequence.
std::size_t utf8_boundary(std::string_view s, std::size_t pos) {
  while (pos < s.size() && (static_cast<unsigned char>(s[pos]) & 0xC0) == 0x80) ++pos;
  return pos;
}

// ---- state -----------------------------------------------------------------------------

enum class stream_kind : unsigned char { text, thinking };

// An open text or thinking block fed by deltas.
struct stream_block {
  std::string item_id;
  int index = 0;
  stream_kind kind = stream_kind::text;
  bool emitted = false;
  std::int64_t part = -1;     // summaryIndex / contentIndex of the last reasoning delta
  bool raw_reasoning = false; // the item's deltas are raw content, not summaries
  bool summary = false;
  std::string text;           // agentMessage text so far, for reconciliation
  bool text_overflow = false;
};

// A started tool item waiting for item/completed.
struct running_item {
  running_item(std::string_view id, std::string_view kind) : item_id(id), type(kind) {}
  std::string item_id;
  std::string type;
  std::vector<std::string> tool_ids;
  std::string tail;           // command output so far (its end, bounded)
  bool truncated = false;
  std::size_t since_emit = 0;
};

struct token_usage {
  bool seen = false;
  std::int64_t input = 0, cached = 0, cache_write = 0, output = 0;
};

class runtime_b_normalizer final : public runtime_normalizer {
 public:
  void feed(std::string_view bytes, std::string& out) override;
  void finish(std::string& out) override;

 private:
  void line(std::string_view text, std::string& out);
  bool inert(const capture_head& head, notification kind) const;
  void on_client(dom::element msg);
  void on_server(dom::element msg, std::string& out, std::optional<notification> kind = std::nullopt);
  void on_response(dom::element msg, std::string& out);
  void on_notification(notification kind, dom::element params, std::string& out);
  void on_thread(dom::element thread, std::string_view model, std::string& out);
  void on_connection(std::int64_t conn, std::string& out);

  // Turns.
  bool accept_turn_event(std::string_view turn, std::string& out);
  void begin_turn(std::string_view turn_id, std::string& out);
  void end_turn(dom::element turn, std::string& out);
  void close_turn(std::string_view tool_error, std::string& out);
  void abandon_turn(std::string_view tool_error, std::string& out);
  void on_usage(dom::element params, std::string_view turn, std::string& out);
  void on_error_notification(dom::element params, std::string& out);
  bool turn_ended(std::string_view id) const;
  void remember_ended(std::string_view id);

  // Messages and blocks.
  void ensure_message(std::string_view item_id, std::string& out);
  void end_message(std::string& out);
  int next_index(std::string_view item_id, std::string& out);
  stream_block* find_block(std::string_view item_id, stream_kind kind);
  void open_stream(std::string_view item_id, stream_kind kind, std::string& out);
  void close_stream(std::string_view item_id, stream_kind kind, std::string& out);
  void on_text_delta(std::string_view item_id, std::string_view delta, std::string& out);
  void on_reasoning_delta(dom::element params, std::string_view item_id, std::string_view delta, bool raw,
                          std::string& out);
  void complete_text(dom::element item, std::string& out);
  void complete_reasoning(dom::element item, std::string& out);

  // Tools.
  void on_item_started(dom::element item, std::string& out);
  void on_item_completed(dom::element item, std::string& out);
  running_item* find_running(std::string_view item_id);
  void erase_running(std::string_view item_id);
  bool start_tool(std::string_view item_id, std::string_view tool_id, std::string_view name,
                  std::string_view input, std::string& out);
  running_item* start_command(dom::element item, std::string& out);
  void on_output_delta(std::string_view item_id, std::string_view delta, std::string& out);
  void emit_preliminary(running_item& r, std::string& out);
  void complete_command(dom::element item, std::string& out);
  running_item* start_file_change(dom::element item, std::string& out);
  void complete_file_change(dom::element item, std::string& out);
  running_item* start_mcp(dom::element item, std::string& out);
  void complete_mcp(dom::element item, std::string& out);
  void complete_web_search(dom::element item, std::string& out);

  line_splitter lines_{max_line_bytes, simdjson::SIMDJSON_PADDING};
  dom::parser parser_;
  dom::parser message_parser_ = message_parser();

  // Session.
  std::string thread_id_;
  std::string init_thread_;
  std::string model_;
  std::int64_t conn_ = -1;
  std::deque<std::pair<std::string, std::string>> requests_;  // client request id → method

  // Turn.
  bool turn_open_ = false;
  std::string turn_id_;
  std::deque<std::string> ended_turns_;
  token_usage usage_;
  std::string last_text_;
  std::string pending_error_;
  bool has_pending_error_ = false;

  // Current assistant message (one model response).
  bool message_open_ = false;
  std::string message_id_;
  int next_index_ = 0;
  int messages_in_turn_ = 0;
  std::vector<std::string> message_ids_;
  std::unordered_set<std::string> started_tools_;  // a call id starts once per UI message
  std::vector<stream_block> blocks_;
  std::vector<running_item> running_;
  std::deque<std::pair<std::string, std::string>> web_outputs_;  // item id → last output
};

// ---- lines -----------------------------------------------------------------------------

void runtime_b_normalizer::feed(std::string_view bytes, std::string& out) {
  lines_.feed(bytes, [&](std::string_view text) { line(text, out); });
}

void runtime_b_normalizer::finish(std::string& out) {
  lines_.finish([&](std::string_view text) { line(text, out); });
  if (turn_open_) close_turn(stopped_text, out);
}

// `text` has simdjson::SIMDJSON_PADDING readable bytes after it (line_splitter).
void runtime_b_normalizer::line(std::string_view text, std::string& out) {
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.remove_suffix(1);
  if (text.empty()) return;
  capture_head head;
  bool captured = read_capture_head(text, head);
  // The method read from the start is the one the parse would find first: classified once.
  std::optional<notification> kind;
  if (captured && head.from_server && !head.method.empty()) kind = notification_of(head.method);
  if (captured && inert(head, kind.value_or(notification::hidden))) return;
  if (captured && text.back() == '}') {
    // The capture writes the message last, after a head read as valid JSON: when the text
    // from the message to the line's last '}' is one JSON value (no deeper than the line
    // allows), the line is valid and that value is its message, so only it is parsed.
    // Otherwise (invalid, or other members after the message) the whole line is.
    std::string_view message(head.msg.data() - 1, head.msg.size());
    if (message_parser_.capacity() > kept_parser_capacity) message_parser_ = message_parser();
    dom::element msg;
    if (!message_parser_.parse(message.data(), message.size(), false).get(msg)) {
      on_connection(head.conn, out);
      if (head.from_server) on_server(msg, out, kind);
      else on_client(msg);
      return;
    }
  }
  if (parser_.capacity() > kept_parser_capacity) parser_ = dom::parser();  // after a long line
  dom::element root;
  if (parser_.parse(text.data(), text.size(), false).get(root) || !root.is_object()) return;
  auto [dir_member, conn, msg_member] = members(root, {"dir", "conn", "msg"});
  dom::element msg;
  std::string_view dir = str_of(dir_member);
  if (!dir.empty() && obj_of(msg_member, msg)) {
    if (auto n = int_of(conn)) on_connection(*n, out);
    if (dir == "c2s") on_client(msg);
    else on_server(msg, out);
    return;
  }
  on_server(root, out);
}

// A line that cannot change anything is not parsed: in the capture form, a server request
// (the worker answers those) or a notification that is not shown, on the current connection.
// Valid or not, such a line has no effect, so only its start is read, as the capture writes
// it: the head, then "method":"<method>"... or "id":<id>,"method":"<method>"... Anything else
// is parsed.
// `kind` is the notification of the message's leading method, if it has one.
bool runtime_b_normalizer::inert(const capture_head& head, notification kind) const {
  if (!head.from_server || head.conn != conn_) return false;
  if (!head.method.empty()) return kind == notification::hidden;
  raw_reader r(head.msg);
  std::int64_t n = 0;
  std::string_view method, id;
  return r.literal(R"("id":)") && (r.integer(n) || r.string(id)) && r.literal(R"(,"method":)") && r.string(method) &&
         !method.empty();
}

// A new app-server process: the old one's requests and unfinished turn are gone.
void runtime_b_normalizer::on_connection(std::int64_t conn, std::string& out) {
  if (conn == conn_) return;
  if (conn_ != -1) {
    requests_.clear();
    if (turn_open_) abandon_turn(restarted_text, out);
  }
  conn_ = conn;
}

// The client's requests tell what each response answers, and which model a turn uses.
void runtime_b_normalizer::on_client(dom::element msg) {
  std::string_view method = str_at(msg, "method");
  dom::element id;
  if (method.empty() || msg["id"].get(id)) return;
  if (requests_.size() >= max_pending_requests) requests_.pop_front();
  requests_.emplace_back(id_key(id), std::string(method));
  dom::element params;
  if (method == "turn/start" && obj_at(msg, "params", params)) {
    std::string_view model = str_at(params, "model");
    if (!model.empty()) model_ = std::string(model);
  }
}

// `kind`, when known, is the notification of the message's method.
void runtime_b_normalizer::on_server(dom::element msg, std::string& out, std::optional<notification> kind) {
  auto [method_member, id, params_member] = members(msg, {"method", "id", "params"});
  std::string_view method = str_of(method_member);
  if (method.empty()) {
    if (id) on_response(msg, out);
    return;
  }
  // Server requests (approvals, elicitations) are the worker's to answer: not UI here.
  if (id) return;
  dom::element params;
  if (!obj_of(params_member, params)) return;
  on_notification(kind ? *kind : notification_of(method), params, out);
}

void runtime_b_normalizer::on_response(dom::element msg, std::string& out) {
  std::string method;
  std::string key = id_key(msg["id"].value_unsafe());
  auto it = std::find_if(requests_.begin(), requests_.end(), [&](const auto& r) { return r.first == key; });
  if (it != requests_.end()) {
    method = std::move(it->second);
    requests_.erase(it);
  }
  bool thread_request = method == "thread/start" || method == "thread/resume" || method == "thread/fork";
  dom::element result, error, thread;
  if (obj_at(msg, "result", result)) {
    std::string_view model = str_at(result, "model");
    // Without the client's side, a thread answer is recognized by its shape.
    if ((thread_request || (method.empty() && !model.empty())) && obj_at(result, "thread", thread)) {
      on_thread(thread, model, out);
    }
    return;
  }
  if (!obj_at(msg, "error", error)) return;
  std::string_view text = str_at(error, "message");
  // A stored thread that is gone: the worker starts a fresh one, the user sees nothing.
  if (starts_with(text, "no rollout found")) return;
  bool surfaced = method.empty() || thread_request || method == "turn/start" || method == "turn/steer";
  if (surfaced) wm::error(out, text.empty() ? std::string_view("The runtime refused the request.") : text);
}

void runtime_b_normalizer::on_thread(dom::element thread, std::string_view model, std::string& out) {
  std::string_view id = str_at(thread, "id");
  if (id.empty()) return;
  if (model.empty()) model = str_at(thread, "model");
  thread_id_ = std::string(id);
  if (!model.empty()) model_ = std::string(model);
  if (init_thread_ == thread_id_) return;
  init_thread_ = thread_id_;
  wm::system_init(out, thread_id_, model_);
}

void runtime_b_normalizer::on_notification(notification kind, dom::element params, std::string& out) {
  if (kind == notification::hidden) return;
  dom::element obj;
  if (kind == notification::thread_started) {
    if (!obj_at(params, "thread", obj)) return;
    std::string_view id = str_at(obj, "id");
    if (thread_id_.empty() || id == thread_id_) on_thread(obj, {}, out);
    return;
  }
  auto [thread_member, turn_member, object_member, item_member, delta_member] =
      members(params, {"threadId", "turnId", kind == notification::turn_started || kind == notification::turn_completed
                                                ? std::string_view("turn") : std::string_view("item"),
                       "itemId", "delta"});
  // Other threads (sub-agents) report on the same connection; they are not this chat.
  std::string_view thread = str_of(thread_member);
  if (!thread.empty() && !thread_id_.empty() && thread != thread_id_) return;
  std::string_view turn = str_of(turn_member);
  switch (kind) {
    case notification::turn_started:
      if (obj_of(object_member, obj)) begin_turn(str_at(obj, "id"), out);
      return;
    case notification::turn_completed:
      if (obj_of(object_member, obj)) end_turn(obj, out);
      return;
    case notification::token_usage:
      on_usage(params, turn, out);
      return;
    case notification::error:
      on_error_notification(params, out);
      return;
    default:
      break;
  }
  if (!accept_turn_event(turn, out)) return;
  std::string_view item_id = str_of(item_member);
  std::string_view delta = str_of(delta_member);
  switch (kind) {
    case notification::item_started:
      if (obj_of(object_member, obj)) on_item_started(obj, out);
      break;
    case notification::item_completed:
      if (obj_of(object_member, obj)) on_item_completed(obj, out);
      break;
    case notification::item_text_delta: on_text_delta(item_id, delta, out); break;
    case notification::item_summary_delta: on_reasoning_delta(params, item_id, delta, false, out); break;
    case notification::item_reasoning_delta: on_reasoning_delta(params, item_id, delta, true, out); break;
    case notification::item_output_delta: on_output_delta(item_id, delta, out); break;
    default: break;
  }
}

// ---- turns -----------------------------------------------------------------------------

bool runtime_b_normalizer::turn_ended(std::string_view id) const {
  return std::find(ended_turns_.begin(), ended_turns_.end(), id) != ended_turns_.end();
}

void runtime_b_normalizer::remember_ended(std::string_view id) {
  if (id.empty()) return;
  if (ended_turns_.size() >= max_ended_turns) ended_turns_.pop_front();
  ended_turns_.emplace_back(id);
}

// Item events of a finished turn are late (an interrupted command keeps printing): dropped.
// Events without a turn open one, so a transcript that starts mid-turn still renders.
bool runtime_b_normalizer::accept_turn_event(std::string_view turn, std::string& out) {
  // The open turn's id is never among the ended ones (a turn is opened only under an id that
  // has not ended, and is closed before its id is remembered as ended).
  if (turn_open_ && !turn.empty() && turn == turn_id_) return true;
  if (!turn.empty() && turn_ended(turn)) return false;
  if (!turn_open_) {
    begin_turn(turn, out);
    return true;
  }
  if (turn.empty() || turn == turn_id_) return true;
  if (turn_id_.empty()) {
    turn_id_ = std::string(turn);
    return true;
  }
  return false;
}

void runtime_b_normalizer::begin_turn(std::string_view turn_id, std::string& out) {
  if (!turn_id.empty() && turn_ended(turn_id)) return;
  if (turn_open_) {
    if (turn_id == turn_id_ || turn_id.empty()) return;
    abandon_turn(interrupted_text, out);  // the previous turn never reported its end
  }
  turn_open_ = true;
  turn_id_ = std::string(turn_id);
  usage_ = {};
  last_text_.clear();
  has_pending_error_ = false;
  pending_error_.clear();
  messages_in_turn_ = 0;
  message_ids_.clear();
  started_tools_.clear();
  web_outputs_.clear();
}

// Closes everything the turn left open: blocks, the message, tools without a result.
void runtime_b_normalizer::close_turn(std::string_view tool_error, std::string& out) {
  for (const auto& b : blocks_) wm::block_stop(out, b.index);
  blocks_.clear();
  for (const auto& r : running_) {
    for (const auto& id : r.tool_ids) {
      if (!id.empty()) wm::tool_result(out, id, json_string_literal(tool_error), true);
    }
  }
  running_.clear();
  end_message(out);
  if (has_pending_error_) wm::error(out, pending_error_);
  has_pending_error_ = false;
  pending_error_.clear();
  remember_ended(turn_id_);
  turn_open_ = false;
  turn_id_.clear();
  web_outputs_.clear();
}

// A turn whose end will never be reported ends here, as an interrupted one would.
void runtime_b_normalizer::abandon_turn(std::string_view tool_error, std::string& out) {
  close_turn(tool_error, out);
  wm::result_fields r;
  r.session_id = thread_id_;
  r.stop_reason = "interrupted";
  wm::result(out, r);
}

void runtime_b_normalizer::end_turn(dom::element turn, std::string& out) {
  std::string_view id = str_at(turn, "id");
  if (!id.empty() && turn_ended(id)) return;
  if (!turn_open_) begin_turn(id, out);
  std::string_view status = str_at(turn, "status");
  wm::result_fields r;
  r.session_id = thread_id_;
  r.result_text = last_text_;
  if (usage_.seen) {
    object_writer u;
    u.num("input_tokens", std::max<std::int64_t>(0, usage_.input - usage_.cached - usage_.cache_write));
    u.num("cache_creation_input_tokens", usage_.cache_write);
    u.num("cache_read_input_tokens", usage_.cached);
    u.num("output_tokens", usage_.output);
    r.usage_json = u.done();
  }
  if (status == "failed") {
    dom::element error;
    std::string_view text;
    if (obj_at(turn, "error", error)) text = str_at(error, "message");
    r.is_error = true;
    r.result_text = !text.empty() ? std::string(text)
                    : has_pending_error_ ? pending_error_
                                         : std::string("The turn failed.");
    has_pending_error_ = false;  // the result carries it: one error, not two
  } else if (status == "interrupted") {
    r.stop_reason = "interrupted";
  } else {
    r.stop_reason = "end_turn";
  }
  close_turn(status == "interrupted" ? interrupted_text : stopped_text, out);
  if (!turn_ended(id)) remember_ended(id);  // when it closed a turn known by another id
  wm::result(out, r);
}

// Per-turn usage is the sum of `last` (one model response each) reported during the turn. A
// resumed thread replays its stored total before the next turn starts: not this turn's.
void runtime_b_normalizer::on_usage(dom::element params, std::string_view turn, std::string& out) {
  if (!turn_open_ || (!turn.empty() && !turn_id_.empty() && turn != turn_id_)) return;
  dom::element usage, last;
  if (!obj_at(params, "tokenUsage", usage) || !obj_at(usage, "last", last)) return;
  usage_.seen = true;
  usage_.input += count_at(last, "inputTokens");
  usage_.cached += count_at(last, "cachedInputTokens");
  usage_.cache_write += count_at(last, "cacheWriteInputTokens");
  usage_.output += count_at(last, "outputTokens");
  if (message_open_ && blocks_.empty()) end_message(out);
}

// `willRetry: true` errors are reconnect progress. A final one is reported once: with the
// turn's result when the turn is open, else at once.
void runtime_b_normalizer::on_error_notification(dom::element params, std::string& out) {
  bool retry = false;
  if (!params["willRetry"].get_bool().get(retry) && retry) return;
  dom::element error;
  std::string_view text;
  if (obj_at(params, "error", error)) text = str_at(error, "message");
  if (text.empty()) text = "The runtime reported an error.";
  if (!turn_open_) {
    wm::error(out, text);
  } else if (!has_pending_error_) {
    has_pending_error_ = true;
    pending_error_ = std::string(text);
  }
}

// ---- messages and streamed blocks --------------------------------------------------------

void runtime_b_normalizer::ensure_message(std::string_view item_id, std::string& out) {
  if (message_open_) return;
  message_open_ = true;
  message_id_ = std::string(item_id);
  ++messages_in_turn_;
  // The bridge keys parts by message id: an item that already began a message (a split for
  // size, more files at completion) continues under a derived id.
  bool reused = message_ids_.size() >= max_turn_messages ||
                std::find(message_ids_.begin(), message_ids_.end(), message_id_) != message_ids_.end();
  if (reused) message_id_ += "#" + std::to_string(messages_in_turn_);
  if (message_ids_.size() < max_turn_messages) message_ids_.push_back(message_id_);
  next_index_ = 0;
  wm::message_start(out, message_id_, model_);
}

void runtime_b_normalizer::end_message(std::string& out) {
  if (!message_open_) return;
  for (const auto& b : blocks_) wm::block_stop(out, b.index);
  blocks_.clear();
  wm::message_stop(out);
  message_open_ = false;
}

int runtime_b_normalizer::next_index(std::string_view item_id, std::string& out) {
  if (message_open_ && next_index_ >= max_block_index) end_message(out);
  ensure_message(item_id, out);
  return next_index_++;
}

stream_block* runtime_b_normalizer::find_block(std::string_view item_id, stream_kind kind) {
  for (auto& b : blocks_) {
    if (b.item_id == item_id && b.kind == kind) return &b;
  }
  return nullptr;
}

void runtime_b_normalizer::open_stream(std::string_view item_id, stream_kind kind, std::string& out) {
  if (item_id.empty() || find_block(item_id, kind) || blocks_.size() >= max_open_blocks) return;
  // The bridge shows one text and one reasoning part at a time: a new one ends the others.
  for (const auto& b : blocks_) wm::block_stop(out, b.index);
  blocks_.clear();
  stream_block b;
  b.item_id = std::string(item_id);
  b.kind = kind;
  b.index = next_index(item_id, out);
  if (kind == stream_kind::text) wm::text_block_start(out, b.index);
  else wm::thinking_block_start(out, b.index);
  blocks_.push_back(std::move(b));
}

void runtime_b_normalizer::close_stream(std::string_view item_id, stream_kind kind, std::string& out) {
  auto it = std::find_if(blocks_.begin(), blocks_.end(),
                         [&](const stream_block& b) { return b.item_id == item_id && b.kind == kind; });
  if (it == blocks_.end()) return;
  wm::block_stop(out, it->index);
  blocks_.erase(it);
}

void runtime_b_normalizer::on_text_delta(std::string_view item_id, std::string_view delta, std::string& out) {
  stream_block* b = find_block(item_id, stream_kind::text);
  if (!b || delta.empty()) return;
  wm::text_delta(out, b->index, delta);
  b->emitted = true;
  if (b->text_overflow || b->text.size() + delta.size() > max_tracked_text) {
    b->text_overflow = true;
    b->text.clear();
  } else {
    b->text.append(delta);
  }
}

// Summary parts are separated by a blank line, as the completed item's parts would read.
void runtime_b_normalizer::on_reasoning_delta(dom::element params, std::string_view item_id, std::string_view delta,
                                              bool raw, std::string& out) {
  stream_block* b = find_block(item_id, stream_kind::thinking);
  if (!b || delta.empty()) return;
  // Summaries when there are any; raw reasoning (open models) only in their absence.
  if (raw ? b->summary : b->raw_reasoning) return;
  (raw ? b->raw_reasoning : b->summary) = true;
  std::int64_t part = int_at(params, raw ? "contentIndex" : "summaryIndex").value_or(0);
  if (b->emitted && part != b->part) wm::thinking_delta(out, b->index, "\n\n");
  b->part = part;
  wm::thinking_delta(out, b->index, delta);
  b->emitted = true;
}

void runtime_b_normalizer::complete_text(dom::element item, std::string& out) {
  std::string_view id = str_at(item, "id");
  std::string_view text = str_at(item, "text");
  open_stream(id, stream_kind::text, out);
  stream_block* b = find_block(id, stream_kind::text);
  if (b) {
    // The completed text is authoritative: fill in what the deltas did not deliver.
    if (!b->emitted && !text.empty()) {
      wm::text_delta(out, b->index, text);
    } else if (!b->text_overflow && text.size() > b->text.size() && starts_with(text, b->text)) {
      wm::text_delta(out, b->index, text.substr(b->text.size()));
    }
    close_stream(id, stream_kind::text, out);
  }
  last_text_ = std::string(text);
}

void runtime_b_normalizer::complete_reasoning(dom::element item, std::string& out) {
  std::string_view id = str_at(item, "id");
  open_stream(id, stream_kind::thinking, out);
  stream_block* b = find_block(id, stream_kind::thinking);
  if (!b) return;
  if (!b->emitted) {
    std::string joined;
    for (std::string_view key : {"summary", "content"}) {
      dom::array parts;
      if (!joined.empty() || item[key].get_array().get(parts)) continue;
      for (dom::element p : parts) {
        std::string_view s;
        if (p.get_string().get(s) || s.empty()) continue;
        if (!joined.empty()) joined.append("\n\n");
        joined.append(s);
      }
    }
    if (!joined.empty()) wm::thinking_delta(out, b->index, joined);
  }
  close_stream(id, stream_kind::thinking, out);
}

// ---- items -----------------------------------------------------------------------------

void runtime_b_normalizer::on_item_started(dom::element item, std::string& out) {
  std::string_view type = str_at(item, "type");
  std::string_view id = str_at(item, "id");
  if (id.empty()) return;
  if (type == "agentMessage") open_stream(id, stream_kind::text, out);
  else if (type == "reasoning") open_stream(id, stream_kind::thinking, out);
  else if (type == "commandExecution") start_command(item, out);
  else if (type == "fileChange") start_file_change(item, out);
  else if (type == "mcpToolCall") start_mcp(item, out);
  // webSearch starts as a placeholder (`action: other`, empty query): shown once completed.
}

void runtime_b_normalizer::on_item_completed(dom::element item, std::string& out) {
  std::string_view type = str_at(item, "type");
  if (str_at(item, "id").empty()) return;
  if (type == "agentMessage") complete_text(item, out);
  else if (type == "reasoning") complete_reasoning(item, out);
  else if (type == "commandExecution") complete_command(item, out);
  else if (type == "fileChange") complete_file_change(item, out);
  else if (type == "mcpToolCall") complete_mcp(item, out);
  else if (type == "webSearch") complete_web_search(item, out);
}

running_item* runtime_b_normalizer::find_running(std::string_view item_id) {
  for (auto& r : running_) {
    if (r.item_id == item_id) return &r;
  }
  return nullptr;
}

void runtime_b_normalizer::erase_running(std::string_view item_id) {
  running_.erase(std::remove_if(running_.begin(), running_.end(),
                                [&](const running_item& r) { return r.item_id == item_id; }),
                 running_.end());
}

// A tool block whose input is complete at once: start, the final input, stop. A call id
// already used in this turn is refused: the UI cannot restart a finished call.
bool runtime_b_normalizer::start_tool(std::string_view item_id, std::string_view tool_id, std::string_view name,
                                      std::string_view input, std::string& out) {
  if (started_tools_.size() >= max_turn_tools || !started_tools_.emplace(tool_id).second) return false;
  int index = next_index(item_id, out);
  wm::tool_use_block_start(out, index, tool_id, name);
  wm::assistant_tool_use(out, message_id_, tool_id, name, input);
  wm::block_stop(out, index);
  return true;
}

running_item* runtime_b_normalizer::start_command(dom::element item, std::string& out) {
  std::string_view id = str_at(item, "id");
  if (running_item* r = find_running(id)) return r->type == "commandExecution" ? r : nullptr;
  if (running_.size() >= max_running_items) return nullptr;
  object_writer input;
  input.str("command", bash_command(item));
  std::string_view cwd = str_at(item, "cwd");
  if (!cwd.empty()) input.str("cwd", cwd);
  if (!start_tool(id, id, "Bash", input.done(), out)) return nullptr;
  running_.emplace_back(id, "commandExecution").tool_ids.emplace_back(id);
  return &running_.back();
}

void runtime_b_normalizer::on_output_delta(std::string_view item_id, std::string_view delta, std::string& out) {
  running_item* r = find_running(item_id);
  if (!r || r->type != "commandExecution" || delta.empty()) return;
  r->tail.append(delta);
  r->since_emit += delta.size();
  if (r->tail.size() > 2 * output_tail_bytes) {
    r->tail.erase(0, utf8_boundary(r->tail, r->tail.size() - output_tail_bytes));
    r->truncated = true;
  }
  std::size_t shown = std::min(r->tail.size(), output_tail_bytes);
  if (r->since_emit * output_repeat_factor >= shown) emit_preliminary(*r, out);
}

// Preliminary results carry the output so far (AI SDK replaces a tool's output with each).
void runtime_b_normalizer::emit_preliminary(running_item& r, std::string& out) {
  std::string_view tail = r.tail;
  bool truncated = r.truncated;
  if (tail.size() > output_tail_bytes) {
    tail.remove_prefix(utf8_boundary(tail, tail.size() - output_tail_bytes));
    truncated = true;
  }
  object_writer content;
  content.str("output", tail);
  if (truncated) content.raw("truncated", "true");
  wm::tool_result(out, r.item_id, content.done(), false, true);
  r.since_emit = 0;
}

void runtime_b_normalizer::complete_command(dom::element item, std::string& out) {
  running_item* r = start_command(item, out);
  if (!r) return;
  std::string_view status = str_at(item, "status");
  std::string output;
  std::string_view aggregated;
  if (!item["aggregatedOutput"].get_string().get(aggregated)) output = std::string(aggregated);
  else output = r->tail;  // best effort: what the deltas delivered
  auto exit_code = int_at(item, "exitCode");
  if (status == "failed" || status == "declined") {
    std::string text = status == "declined" ? std::string("The command was declined.")
                       : exit_code          ? "Exit code " + std::to_string(*exit_code)
                                            : std::string("The command failed.");
    if (!output.empty()) text.append("\n").append(output);
    wm::tool_result(out, r->item_id, json_string_literal(text), true);
  } else {
    object_writer content;
    content.str("output", output);
    if (exit_code) content.num("exitCode", *exit_code);
    wm::tool_result(out, r->item_id, content.done());
  }
  erase_running(r->item_id);
}

// One Write or Edit per changed file; several files get `<item id>:<index>` tool ids.
namespace {

// `content` as the lines of a unified diff that removes it: "-" before each line.
std::string removed_lines(std::string_view content) {
  std::string out;
  out.reserve(content.size() + content.size() / 16 + 1);
  bool line_start = true;
  for (char c : content) {
    if (line_start) out.push_back('-');
    out.push_back(c);
    line_start = c == '\n';
  }
  return out;
}

}  // namespace

running_item* runtime_b_normalizer::start_file_change(dom::element item, std::string& out) {
  std::string_view id = str_at(item, "id");
  running_item* r = find_running(id);
  if (r && r->type != "fileChange") return nullptr;
  if (!r) {
    if (running_.size() >= max_running_items) return nullptr;
    running_.emplace_back(id, "fileChange");
    r = &running_.back();
  }
  dom::array changes;
  if (item["changes"].get_array().get(changes)) return r;
  std::size_t count = changes.size();
  std::size_t i = 0;
  for (dom::element change : changes) {
    if (i++ < r->tool_ids.size()) continue;
    std::string tool_id(id);
    if (count > 1) tool_id += ":" + std::to_string(i - 1);
    dom::element kind;
    std::string_view kind_type = obj_at(change, "kind", kind) ? str_at(kind, "type") : std::string_view();
    object_writer input;
    input.str("file_path", str_at(change, "path"));
    if (kind_type == "add") {
      input.str("content", str_at(change, "diff"));
    } else if (kind_type == "delete") {
      // Codex gives a deleted file's old content as it was, not as diff lines: shown as a
      // diff, every line of it is a removed one.
      input.str("kind", kind_type);
      input.str("diff", removed_lines(str_at(change, "diff")));
    } else {
      input.str("kind", kind_type.empty() ? std::string_view("update") : kind_type);
      input.str("diff", str_at(change, "diff"));
      std::string_view move = kind_type == "update" ? str_at(kind, "move_path") : std::string_view();
      if (!move.empty()) input.str("move_path", move);
    }
    bool started = start_tool(id, tool_id, kind_type == "add" ? "Write" : "Edit", input.done(), out);
    r->tool_ids.push_back(started ? std::move(tool_id) : std::string());  // "": not shown
  }
  return r;
}

// The item's changes as {path, kind, diff, move_path?}; `only` picks one of them.
std::string change_list(dom::element item, std::optional<std::size_t> only = std::nullopt) {
  dom::array changes;
  if (item["changes"].get_array().get(changes)) return "[]";
  std::string list = "[";
  std::size_t i = 0;
  for (dom::element change : changes) {
    if (only && i++ != *only) continue;
    dom::element kind;
    std::string_view kind_type = obj_at(change, "kind", kind) ? str_at(kind, "type") : std::string_view();
    object_writer entry;
    entry.str("path", str_at(change, "path")).str("kind", kind_type).str("diff", str_at(change, "diff"));
    std::string_view move = kind_type == "update" ? str_at(kind, "move_path") : std::string_view();
    if (!move.empty()) entry.str("move_path", move);
    if (list.size() > 1) list.push_back(',');
    list.append(entry.done());
  }
  list.push_back(']');
  return list;
}

// Every file's result keeps the item's whole change list (spec: fileChange keeps {path,
// kind, diff}), unless repeating it per file would be large: then each lists its own change.
void runtime_b_normalizer::complete_file_change(dom::element item, std::string& out) {
  running_item* r = start_file_change(item, out);
  if (!r) return;
  std::string_view status = str_at(item, "status");
  if (status == "failed" || status == "declined") {
    std::string text =
        json_string_literal(status == "declined" ? "The file change was declined." : "The file change failed.");
    for (const auto& tool_id : r->tool_ids) {
      if (!tool_id.empty()) wm::tool_result(out, tool_id, text, true);
    }
  } else {
    std::string list = change_list(item);
    bool repeat_all = list.size() * r->tool_ids.size() <= max_repeated_list_bytes;
    for (std::size_t i = 0; i < r->tool_ids.size(); ++i) {
      if (r->tool_ids[i].empty()) continue;
      object_writer content;
      content.str("status", "completed").raw("changes", repeat_all ? list : change_list(item, i));
      wm::tool_result(out, r->tool_ids[i], content.done());
    }
  }
  erase_running(r->item_id);
}

running_item* runtime_b_normalizer::start_mcp(dom::element item, std::string& out) {
  std::string_view id = str_at(item, "id");
  if (running_item* r = find_running(id)) return r->type == "mcpToolCall" ? r : nullptr;
  if (running_.size() >= max_running_items) return nullptr;
  std::string name = "mcp__";
  name.append(str_at(item, "server")).append("__").append(str_at(item, "tool"));
  dom::element args;
  std::string input = !item["arguments"].get(args) && !args.is_null() ? json_of(args) : std::string("{}");
  if (!start_tool(id, id, name, input, out)) return nullptr;
  running_.emplace_back(id, "mcpToolCall").tool_ids.emplace_back(id);
  return &running_.back();
}

void runtime_b_normalizer::complete_mcp(dom::element item, std::string& out) {
  running_item* r = start_mcp(item, out);
  if (!r) return;
  dom::element result, error;
  bool has_result = !item["result"].get(result) && !result.is_null();
  if (str_at(item, "status") == "failed") {
    std::string_view text = obj_at(item, "error", error) ? str_at(error, "message") : std::string_view();
    std::string content = !text.empty() ? json_string_literal(text)
                          : has_result  ? json_of(result)
                                        : json_string_literal("The tool call failed.");
    wm::tool_result(out, r->item_id, content, true);
  } else {
    wm::tool_result(out, r->item_id, has_result ? json_of(result) : std::string("null"));
  }
  erase_running(r->item_id);
}

// Hosted web search: only the completed item says what it did. A search is WebSearch, opening
// or searching a page WebFetch; a later completion of the same item updates its output.
void runtime_b_normalizer::complete_web_search(dom::element item, std::string& out) {
  std::string_view id = str_at(item, "id");
  std::string_view query = str_at(item, "query");
  dom::element action;
  bool has_action = obj_at(item, "action", action);
  std::string_view type = has_action ? str_at(action, "type") : std::string_view();
  object_writer output;
  output.str("query", query);
  if (has_action) output.raw("action", json_of(action));
  dom::element results;
  if (!item["results"].get(results) && !results.is_null()) output.raw("results", json_of(results));
  std::string content = output.done();

  auto known = std::find_if(web_outputs_.begin(), web_outputs_.end(), [&](const auto& w) { return w.first == id; });
  if (known != web_outputs_.end()) {
    if (known->second == content) return;
    known->second = content;
    wm::tool_result(out, id, content);
    return;
  }
  object_writer input;
  std::string_view name = "WebFetch";
  if (type == "openPage" || type == "findInPage") {
    input.str("url", str_at(action, "url"));
    if (type == "findInPage") input.str("pattern", str_at(action, "pattern"));
  } else {
    name = "WebSearch";
    std::string_view q = type == "search" ? str_at(action, "query") : std::string_view();
    input.str("query", q.empty() ? query : q);
    dom::element queries;
    if (type == "search" && !action["queries"].get(queries) && queries.is_array()) {
      input.raw("queries", json_of(queries));
    }
  }
  if (type != "search" && type != "openPage" && type != "findInPage" && query.empty()) return;
  if (!start_tool(id, id, name, input.done(), out)) return;
  wm::tool_result(out, id, content);
  if (web_outputs_.size() >= max_web_results) web_outputs_.pop_front();
  web_outputs_.emplace_back(std::string(id), std::move(content));
}

}  // namespace

std::unique_ptr<runtime_normalizer> make_runtime_b_normalizer() {
  return std::make_unique<runtime_b_normalizer>();
}

}  // namespace platform
