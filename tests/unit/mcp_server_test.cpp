// The MCP broker's endpoint as a pure function: auth, version negotiation, the 2026-07-28
// discovery probe, every method and every error it answers, and the grant registry.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/mcp_server.hpp"

namespace mcp_server_test {

using nlohmann::json;
using platform::handle_mcp_request;
using platform::mcp_decision;
using platform::mcp_grants;
using platform::mcp_http_request;
using platform::mcp_server_options;
using platform::turn_grant;

namespace {

const std::string token_a = "tok-A-0123456789abcdef0123456789abcdef";
const std::string token_b = "tok-B-0123456789abcdef0123456789abcdef";
const std::string bearer_a = "Bearer " + token_a;
constexpr const char* accept_both = "application/json, text/event-stream";

turn_grant builder_grant() {
  turn_grant g;
  g.token = token_a;
  g.app_id = "app-1";
  g.run_id = "run-1";
  g.tools.push_back({"mcp__platform__present_plan", "Show the plan for approval",
                     R"({"type":"object","properties":{"title":{"type":"string"}},"required":["title"]})", ""});
  g.tools.push_back({"mcp__platform__done_building", "", R"({"type":"object","additionalProperties":false})",
                     R"({"readOnlyHint":true})"});
  g.tools.push_back({"mcp__app_data__read_app_data", "Read", R"({"type":"object"})", ""});
  return g;
}

turn_grant agent_grant() {
  turn_grant g;
  g.token = token_b;
  g.app_id = "app-2";
  g.run_id = "run-2";
  g.tools.push_back({"mcp__app_tools__crm_search", "Search the CRM", R"({"type":"object"})", ""});
  return g;
}

struct fixture {
  mcp_grants grants;
  mcp_server_options options;
  fixture() {
    REQUIRE(grants.add(builder_grant()));
    REQUIRE(grants.add(agent_grant()));
  }

  mcp_decision post(const std::string& body, const std::string& version = "2025-11-25",
                    const std::string& auth = bearer_a) {
    mcp_http_request r;
    r.method = "POST";
    r.authorization = auth;
    r.accept = accept_both;
    r.content_type = "application/json";
    r.protocol_version = version;
    r.body = body;
    return handle_mcp_request(options, grants, r);
  }
};

json body_of(const mcp_decision& d) {
  REQUIRE_FALSE(d.call);
  REQUIRE(d.reply.content_type == "application/json");
  return json::parse(d.reply.body);
}

// A JSON-RPC error: checks status and code, returns the body.
json rpc_error(const mcp_decision& d, int status, int code) {
  CHECK(d.reply.status == status);
  json b = body_of(d);
  CHECK(b["jsonrpc"] == "2.0");
  CHECK(b["error"]["code"] == code);
  CHECK(b["error"]["message"].is_string());
  CHECK_FALSE(b.contains("result"));
  return b;
}

json rpc_result(const mcp_decision& d) {
  CHECK(d.reply.status == 200);
  json b = body_of(d);
  CHECK(b["jsonrpc"] == "2.0");
  CHECK_FALSE(b.contains("error"));
  return b;
}

std::string header(const mcp_decision& d, const std::string& name) {
  for (const auto& [k, v] : d.reply.headers) {
    if (k == name) return v;
  }
  return "<absent>";
}

std::string initialize(const std::string& version, int id = 1) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"initialize","params":{"protocolVersion":")" + version +
         R"(","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"t","version":"0"}}})";
}

std::string call(const std::string& name, const std::string& args = "{}") {
  return R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":")" + name + R"(","arguments":)" + args +
         "}}";
}

}  // namespace

TEST_CASE("protocol versions: supported set and negotiation") {
  CHECK(platform::mcp_latest_protocol_version == "2025-11-25");
  for (auto v : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
    CHECK(platform::mcp_protocol_version_supported(v));
    CHECK(platform::mcp_negotiate_protocol_version(v) == v);
  }
  for (auto v : {"2026-07-28", "2024-11-05", "", "1.0"}) {
    CHECK_FALSE(platform::mcp_protocol_version_supported(v));
    CHECK(platform::mcp_negotiate_protocol_version(v) == "2025-11-25");
  }
}

TEST_CASE("canonical tool names and endpoint paths") {
  CHECK(platform::mcp_tool_name("app_tools", "crm_search") == "mcp__app_tools__crm_search");
  CHECK(platform::mcp_endpoint_path("app_data") == "/mcp/app_data");
  auto p = platform::split_mcp_tool_name("mcp__app_tools__crm__search");
  REQUIRE(p);
  CHECK(p->server == "app_tools");
  CHECK(p->tool == "crm__search");
  CHECK_FALSE(platform::split_mcp_tool_name("mcp__platform"));
  CHECK_FALSE(platform::split_mcp_tool_name("mcp__platform__"));
  CHECK_FALSE(platform::split_mcp_tool_name("mcp____x"));
  CHECK_FALSE(platform::split_mcp_tool_name("platform__x"));
}

TEST_CASE("grants: validation on add") {
  mcp_grants g;
  SUBCASE("a good grant") {
    CHECK(g.add(builder_grant()));
    CHECK(g.size() == 1);
  }
  SUBCASE("short or header-unsafe token") {
    auto t = builder_grant();
    t.token = "short";
    CHECK(g.add(t).error().code == platform::api_error::invalid_token);
    t.token = std::string(40, 'x') + " y";
    CHECK(g.add(t).error().code == platform::api_error::invalid_token);
    t.token = std::string(40, 'x') + "\n";
    CHECK(g.add(t).error().code == platform::api_error::invalid_token);
  }
  SUBCASE("duplicate token") {
    REQUIRE(g.add(builder_grant()));
    auto e = g.add(builder_grant());
    REQUIRE_FALSE(e);
    CHECK(e.error().code == platform::api_error::duplicate_token);
    CHECK(e.error().message.find(token_a) == std::string::npos);
  }
  SUBCASE("tool names must be canonical") {
    for (const std::string& bad : std::vector<std::string>{"present_plan", "mcp__platform__", "mcp__platform__bad name", "mcp__plat form__x",
                            "mcp__platform__" + std::string(129, 'a')}) {
      auto t = builder_grant();
      t.tools[0].name = bad;
      auto e = g.add(t);
      REQUIRE_FALSE(e);
      CHECK(e.error().code == platform::api_error::invalid_tool_name);
    }
  }
  SUBCASE("duplicate tool") {
    auto t = builder_grant();
    t.tools.push_back(t.tools[0]);
    CHECK(g.add(t).error().code == platform::api_error::duplicate_tool);
  }
  SUBCASE("input schema must be an object schema") {
    for (const std::string& bad : std::vector<std::string>{"", "{", "[]", R"({"type":"string"})", R"({"properties":{}})",
                            std::string(200, '[') + std::string(200, ']')}) {
      auto t = builder_grant();
      t.tools[0].input_schema_json = bad;
      CHECK(g.add(t).error().code == platform::api_error::invalid_input_schema);
    }
  }
  SUBCASE("annotations must be an object") {
    auto t = builder_grant();
    t.tools[0].annotations_json = "true";
    CHECK(g.add(t).error().code == platform::api_error::invalid_annotations);
  }
  CHECK(g.size() <= 1);
}

TEST_CASE("grants: find, usage and remove by token") {
  mcp_grants g;
  REQUIRE(g.add(builder_grant()));
  REQUIRE(g.add(agent_grant()));
  REQUIRE(g.find(token_a));
  CHECK(g.find(token_a)->run_id == "run-1");
  REQUIRE(g.find(token_b));
  CHECK(g.find(token_b)->run_id == "run-2");
  CHECK_FALSE(g.find(""));
  CHECK_FALSE(g.find(token_a.substr(0, token_a.size() - 1)));
  CHECK_FALSE(g.find(token_a + "x"));

  CHECK_FALSE(g.connected(token_a));
  g.mark_connected(token_a, "platform");
  g.mark_connected(token_a, "platform");
  CHECK(g.connected(token_a));
  CHECK(g.connected(token_a, "platform"));
  CHECK_FALSE(g.connected(token_a, "app_data"));
  CHECK_FALSE(g.connected(token_b));
  g.count_tool_call(token_a);

  auto u = g.remove(token_a);
  REQUIRE(u);
  CHECK(u->connected_servers == std::vector<std::string>{"platform"});
  CHECK(u->tool_calls == 1);
  CHECK_FALSE(g.find(token_a));
  CHECK_FALSE(g.remove(token_a));
  CHECK_FALSE(g.usage(token_a));
  CHECK(g.find(token_b));
  CHECK(g.size() == 1);
}

TEST_CASE("auth: a missing or wrong bearer token is 401 with a Bearer challenge") {
  fixture f;
  auto body = initialize("2025-11-25");
  SUBCASE("missing") {
    auto d = f.post(body, "", "");
    auto b = rpc_error(d, 401, -32001);
    CHECK(b["id"].is_null());
    CHECK(header(d, "WWW-Authenticate") == "Bearer");
  }
  SUBCASE("another scheme") {
    auto d = f.post(body, "", "Basic dXNlcjpwYXNz");
    rpc_error(d, 401, -32001);
    CHECK(header(d, "WWW-Authenticate") == "Bearer");
    d = f.post(body, "", "Bearer" + token_a);  // no separator
    CHECK(d.reply.status == 401);
  }
  SUBCASE("wrong token") {
    for (const std::string& auth : std::vector<std::string>{"Bearer nope", "Bearer " + token_a + "x", "Bearer " + token_a.substr(1), "Bearer",
                             "Bearer  "}) {
      auto d = f.post(body, "", auth);
      rpc_error(d, 401, -32001);
      CHECK(header(d, "WWW-Authenticate") == R"(Bearer error="invalid_token")");
    }
  }
  SUBCASE("the scheme is case-insensitive, surrounding spaces are not part of the token") {
    CHECK(f.post(body, "", "bearer " + token_a).reply.status == 200);
    CHECK(f.post(body, "", "  BEARER   " + token_a + " ").reply.status == 200);
  }
  SUBCASE("a removed grant's token stops working") {
    CHECK(f.post(body, "", bearer_a).reply.status == 200);
    f.grants.remove(token_a);
    CHECK(f.post(body, "", bearer_a).reply.status == 401);
  }
  SUBCASE("auth is checked before the HTTP method and the body") {
    mcp_http_request r;
    r.method = "GET";
    auto d = handle_mcp_request(f.options, f.grants, r);
    CHECK(d.reply.status == 401);
    CHECK(f.post("not json", "", "Bearer wrong").reply.status == 401);
  }
  CHECK_FALSE(f.grants.connected(token_b));
}

TEST_CASE("origin: absent is allowed, a foreign one is 403 before auth, listed ones pass") {
  fixture f;
  mcp_http_request r;
  r.method = "POST";
  r.authorization = bearer_a;
  std::string body = initialize("2025-11-25");
  r.body = body;
  r.origin = "http://evil.invalid";
  auto d = handle_mcp_request(f.options, f.grants, r);
  rpc_error(d, 403, -32000);
  r.authorization = "";
  CHECK(handle_mcp_request(f.options, f.grants, r).reply.status == 403);
  CHECK_FALSE(f.grants.connected(token_a));
  r.authorization = bearer_a;
  f.options.allowed_origins = {"http://127.0.0.1:8788"};
  r.origin = "http://127.0.0.1:8788";
  CHECK(handle_mcp_request(f.options, f.grants, r).reply.status == 200);
}

TEST_CASE("initialize: result shape, version negotiation, connected recorded per server") {
  fixture f;
  CHECK_FALSE(f.grants.connected(token_a));
  auto b = rpc_result(f.post(initialize("2025-11-25"), ""));
  CHECK(b["id"] == 1);
  CHECK(b["result"]["protocolVersion"] == "2025-11-25");
  CHECK(b["result"]["capabilities"] == json::parse(R"({"tools":{"listChanged":false}})"));
  CHECK(b["result"]["serverInfo"]["name"] == "platform");
  CHECK(b["result"]["serverInfo"]["version"] == "0.1.0");
  CHECK_FALSE(b["result"].contains("instructions"));
  CHECK(f.grants.connected(token_a));
  CHECK(f.grants.connected(token_a, "platform"));
  CHECK_FALSE(f.grants.connected(token_a, "app_data"));
  CHECK_FALSE(f.grants.connected(token_b));

  SUBCASE("the client's version when we speak it, else our latest") {
    CHECK(rpc_result(f.post(initialize("2025-06-18"), ""))["result"]["protocolVersion"] == "2025-06-18");
    CHECK(rpc_result(f.post(initialize("2025-03-26"), ""))["result"]["protocolVersion"] == "2025-03-26");
    CHECK(rpc_result(f.post(initialize("2024-11-05"), ""))["result"]["protocolVersion"] == "2025-11-25");
    CHECK(rpc_result(f.post(initialize("2026-07-28"), ""))["result"]["protocolVersion"] == "2025-11-25");
  }
  SUBCASE("the MCP-Protocol-Version header does not apply to initialize") {
    auto d = f.post(initialize("2025-06-18"), "2026-07-28");
    CHECK(rpc_result(d)["result"]["protocolVersion"] == "2025-06-18");
  }
  SUBCASE("instructions and the server name come from the options") {
    f.options.server_name = "app_data";
    f.options.instructions = "Use read_app_data.";
    auto r = rpc_result(f.post(initialize("2025-11-25"), ""));
    CHECK(r["result"]["serverInfo"]["name"] == "app_data");
    CHECK(r["result"]["instructions"] == "Use read_app_data.");
    CHECK(f.grants.connected(token_a, "app_data"));
    CHECK(f.grants.usage(token_a)->connected_servers == std::vector<std::string>{"platform", "app_data"});
  }
  SUBCASE("params without protocolVersion are -32602") {
    fixture g;
    rpc_error(g.post(R"({"jsonrpc":"2.0","id":1,"method":"initialize"})"), 200, -32602);
    rpc_error(g.post(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5}})"), 200,
              -32602);
    CHECK_FALSE(g.grants.connected(token_a));
  }
}

TEST_CASE("the 2026-07-28 server/discover probe gets exactly 400/-32000 so the client falls back") {
  fixture f;
  auto d = f.post(R"({"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{}})",
                  "2026-07-28");
  CHECK(d.reply.status == 400);
  CHECK(d.reply.content_type == "application/json");
  CHECK(d.reply.body ==
        R"({"jsonrpc":"2.0","id":"server-discover-probe-1","error":{"code":-32000,"message":"Unsupported protocol version: 2026-07-28"}})");
  for (int code : {-32020, -32021, -32022}) CHECK(json::parse(d.reply.body)["error"]["code"] != code);
  CHECK_FALSE(f.grants.connected(token_a));
  // Without the header it is merely an unknown method (also a fallback trigger).
  rpc_error(f.post(R"({"jsonrpc":"2.0","id":"p","method":"server/discover","params":{}})", ""), 200, -32601);
}

TEST_CASE("MCP-Protocol-Version on later requests: unsupported is 400, supported or absent is fine") {
  fixture f;
  std::string ping = R"({"jsonrpc":"2.0","id":"a","method":"ping"})";
  for (auto v : {"2025-11-25", "2025-06-18", "2025-03-26", ""}) CHECK(f.post(ping, v).reply.status == 200);
  for (auto v : {"2024-11-05", "2026-07-28", "garbage"}) {
    auto b = rpc_error(f.post(ping, v), 400, -32000);
    CHECK(b["id"] == "a");
    CHECK(b["error"]["message"] == std::string("Unsupported protocol version: ") + v);
  }
  // Notifications are checked too (the header check comes before the 202).
  rpc_error(f.post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", "2099-01-01"), 400, -32000);
}

TEST_CASE("notifications and client responses are 202 without a body") {
  fixture f;
  for (const std::string& body : std::vector<std::string>{R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                           R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}})",
                           R"({"jsonrpc":"2.0","method":"anything/else"})",
                           R"({"jsonrpc":"2.0","id":0,"result":{"action":"cancel"}})",
                           R"({"jsonrpc":"2.0","id":0,"error":{"code":-1,"message":"no"}})"}) {
    auto d = f.post(body);
    CHECK(d.reply.status == 202);
    CHECK(d.reply.body.empty());
    CHECK(d.reply.content_type.empty());
    CHECK_FALSE(d.call);
  }
  CHECK_FALSE(f.grants.connected(token_a));  // notifications/initialized alone is not a connection
}

TEST_CASE("ping answers an empty result and echoes string and number ids") {
  fixture f;
  auto b = rpc_result(f.post(R"({"jsonrpc":"2.0","id":"x-1","method":"ping"})"));
  CHECK(b["id"] == "x-1");
  CHECK(b["result"] == json::object());
  CHECK(rpc_result(f.post(R"({"jsonrpc":"2.0","id":42,"method":"ping","params":{}})"))["id"] == 42);
  CHECK(rpc_result(f.post(R"({"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"})"))["id"] ==
        18446744073709551615ull);
}

TEST_CASE("tools/list: only this server's granted tools, bare names, schemas as objects") {
  fixture f;
  auto d = f.post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"progressToken":1}}})");
  auto b = rpc_result(d);
  auto tools = b["result"]["tools"];
  REQUIRE(tools.size() == 2);
  CHECK(tools[0]["name"] == "present_plan");
  CHECK(tools[0]["description"] == "Show the plan for approval");
  CHECK(tools[0]["inputSchema"]["type"] == "object");
  CHECK(tools[0]["inputSchema"]["required"] == json::array({"title"}));
  CHECK_FALSE(tools[0].contains("annotations"));
  CHECK(tools[1]["name"] == "done_building");
  CHECK_FALSE(tools[1].contains("description"));
  CHECK(tools[1]["annotations"]["readOnlyHint"] == true);
  CHECK_FALSE(b["result"].contains("nextCursor"));
  // Property order of the schema is kept as granted.
  CHECK(d.reply.body.find(R"("inputSchema":{"type":"object","properties":)") != std::string::npos);

  SUBCASE("no params at all") {
    CHECK(rpc_result(f.post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})"))["result"]["tools"].size() == 2);
  }
  SUBCASE("another server endpoint lists its own tools; a turn with none there gets an empty list") {
    f.options.server_name = "app_data";
    auto t = rpc_result(f.post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})"))["result"]["tools"];
    REQUIRE(t.size() == 1);
    CHECK(t[0]["name"] == "read_app_data");
    f.options.server_name = "app_tools";
    CHECK(rpc_result(f.post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})"))["result"]["tools"] ==
          json::array());
    auto other = rpc_result(f.post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", "", "Bearer " + token_b));
    REQUIRE(other["result"]["tools"].size() == 1);
    CHECK(other["result"]["tools"][0]["name"] == "crm_search");
  }
  SUBCASE("a cursor we never issued is -32602; non-object params too") {
    rpc_error(f.post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"abc"}})"), 200, -32602);
    rpc_error(f.post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list","params":[1]})"), 200, -32602);
  }
}

TEST_CASE("tools/call: a granted tool becomes a call decision for the glue") {
  fixture f;
  auto d = f.post(R"({"jsonrpc":"2.0","id":"c-3","method":"tools/call","params":{"name":"present_plan",)"
                  R"("arguments":{"title":"Fix bug","steps":["a","b"]},"_meta":{"progressToken":3}}})");
  REQUIRE(d.call);
  CHECK(d.call->id_json == R"("c-3")");
  CHECK(d.call->name == "mcp__platform__present_plan");
  CHECK(d.call->tool == "present_plan");
  CHECK(json::parse(d.call->arguments_json) == json::parse(R"({"title":"Fix bug","steps":["a","b"]})"));
  CHECK(d.call->app_id == "app-1");
  CHECK(d.call->run_id == "run-1");
  CHECK(f.grants.usage(token_a)->tool_calls == 1);

  SUBCASE("the result helper: text content, isError only on failure, the id echoed") {
    auto ok = platform::mcp_tool_result_reply(*d.call, R"({"accepted":true})", false);
    CHECK(ok.status == 200);
    CHECK(ok.content_type == "application/json");
    CHECK(ok.body ==
          R"({"jsonrpc":"2.0","id":"c-3","result":{"content":[{"type":"text","text":"{\"accepted\":true}"}]}})");
    auto bad = json::parse(platform::mcp_tool_result_reply(*d.call, "endpoint said 500", true).body);
    CHECK(bad["result"]["isError"] == true);
    CHECK(bad["result"]["content"][0] == json::parse(R"({"type":"text","text":"endpoint said 500"})"));
    auto mangled = json::parse(platform::mcp_tool_result_reply(*d.call, "a\xff" "b", false).body);
    CHECK(mangled["result"]["content"][0]["text"] == "a\xef\xbf\xbd" "b");
  }
  SUBCASE("a number id round-trips") {
    auto n = f.post(call("done_building"));
    REQUIRE(n.call);
    CHECK(n.call->id_json == "7");
    CHECK(json::parse(platform::mcp_tool_result_reply(*n.call, "ok", false).body)["id"] == 7);
  }
  SUBCASE("missing or null arguments are {}") {
    auto n = f.post(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"done_building"}})");
    REQUIRE(n.call);
    CHECK(n.call->arguments_json == "{}");
    n = f.post(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"done_building","arguments":null}})");
    REQUIRE(n.call);
    CHECK(n.call->arguments_json == "{}");
  }
}

TEST_CASE("tools/call: a tool not granted to this turn on this server is refused with -32602") {
  fixture f;
  // Unknown everywhere.
  auto b = rpc_error(f.post(call("nope")), 200, -32602);
  CHECK(b["id"] == 7);
  CHECK(b["error"]["message"] == "Unknown tool: nope");
  // Granted to another turn (token_b's crm_search), asked on its own server with token_a.
  f.options.server_name = "app_tools";
  rpc_error(f.post(call("crm_search")), 200, -32602);
  // Granted to this turn, but on another server than this endpoint's.
  f.options.server_name = "platform";
  rpc_error(f.post(call("read_app_data")), 200, -32602);
  // The canonical name is not a tool name on the wire.
  rpc_error(f.post(call("mcp__platform__present_plan")), 200, -32602);
  CHECK(f.grants.usage(token_a)->tool_calls == 0);
}

TEST_CASE("tools/call: malformed params are -32602") {
  fixture f;
  for (const std::string& body : std::vector<std::string>{R"({"jsonrpc":"2.0","id":1,"method":"tools/call"})",
                           R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]})",
                           R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}})",
                           R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":3}})",
                           call("present_plan", "[]"), call("present_plan", R"("x")"), call("present_plan", "1")}) {
    auto d = f.post(body);
    CHECK_FALSE(d.call);
    rpc_error(d, 200, -32602);
  }
}

TEST_CASE("unknown methods are -32601 with the id echoed") {
  fixture f;
  for (auto m : {"resources/list", "prompts/list", "logging/setLevel", "notifications/initialized", ""}) {
    auto b = rpc_error(f.post(std::string(R"({"jsonrpc":"2.0","id":"u","method":")") + m + R"("})"), 200, -32601);
    CHECK(b["id"] == "u");
  }
}

TEST_CASE("bad JSON is 400 -32700 with a null id") {
  fixture f;
  for (const std::string& body : std::vector<std::string>{"", "{", "not json", R"({"jsonrpc":"2.0","id":1,"method":"ping")", "\xff\xfe"}) {
    auto b = rpc_error(f.post(body), 400, -32700);
    CHECK(b["id"].is_null());
  }
}

TEST_CASE("invalid requests are 400 -32600") {
  fixture f;
  SUBCASE("batches, empty or not") {
    rpc_error(f.post(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])"), 400, -32600);
    rpc_error(f.post("[]"), 400, -32600);
    rpc_error(f.post(R"([{"jsonrpc":"2.0","method":"notifications/initialized"}])", "2025-03-26"), 400, -32600);
  }
  SUBCASE("not an object") {
    for (auto body : {"1", "\"x\"", "null", "true"}) rpc_error(f.post(body), 400, -32600);
  }
  SUBCASE("bad envelope; a usable id is echoed") {
    auto b = rpc_error(f.post(R"({"id":5,"method":"ping"})"), 400, -32600);
    CHECK(b["id"] == 5);
    rpc_error(f.post(R"({"jsonrpc":"1.0","id":5,"method":"ping"})"), 400, -32600);
    rpc_error(f.post(R"({"jsonrpc":2.0,"id":5,"method":"ping"})"), 400, -32600);
    rpc_error(f.post(R"({"jsonrpc":"2.0","id":5,"method":7})"), 400, -32600);
    rpc_error(f.post(R"({"jsonrpc":"2.0","id":5,"method":"ping","params":"x"})"), 400, -32600);
    rpc_error(f.post(R"({"jsonrpc":"2.0","id":5})"), 400, -32600);
    rpc_error(f.post(R"({"jsonrpc":"2.0","id":5,"result":{},"error":{}})"), 400, -32600);
    rpc_error(f.post(R"({"jsonrpc":"2.0","result":{}})"), 400, -32600);
  }
  SUBCASE("ids that are null, booleans or objects") {
    for (auto id : {"null", "true", "{}", "[]"}) {
      auto b = rpc_error(f.post(std::string(R"({"jsonrpc":"2.0","id":)") + id + R"(,"method":"ping"})"), 400, -32600);
      CHECK(b["id"].is_null());
    }
  }
  SUBCASE("nesting deeper than the bound") {
    std::string deep = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"present_plan","arguments":{"a":)" +
                       std::string(300, '[') + std::string(300, ']') + "}}}";
    rpc_error(f.post(deep), 400, -32600);
  }
  CHECK_FALSE(f.grants.connected(token_a));
}

TEST_CASE("GET, DELETE and other HTTP methods are 405 with Allow: POST") {
  fixture f;
  for (auto m : {"GET", "DELETE", "PUT", "OPTIONS", "post"}) {
    mcp_http_request r;
    r.method = m;
    r.authorization = bearer_a;
    r.accept = "text/event-stream";
    auto d = handle_mcp_request(f.options, f.grants, r);
    rpc_error(d, 405, -32000);
    CHECK(header(d, "Allow") == "POST");
  }
}

TEST_CASE("Accept must admit application/json; absent is fine") {
  fixture f;
  mcp_http_request r;
  r.method = "POST";
  r.authorization = bearer_a;
  std::string body = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  r.body = body;
  for (auto a : {"", "application/json", "text/event-stream, application/json", "*/*", "application/*",
                 "Application/JSON; q=0.9"}) {
    r.accept = a;
    CHECK(handle_mcp_request(f.options, f.grants, r).reply.status == 200);
  }
  for (auto a : {"text/event-stream", "text/html", "application/jsonx"}) {
    r.accept = a;
    rpc_error(handle_mcp_request(f.options, f.grants, r), 406, -32000);
  }
}

TEST_CASE("Content-Type, when sent, must be application/json") {
  fixture f;
  mcp_http_request r;
  r.method = "POST";
  r.authorization = bearer_a;
  std::string body = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  r.body = body;
  for (auto c : {"", "application/json", "application/json; charset=utf-8", "APPLICATION/JSON"}) {
    r.content_type = c;
    CHECK(handle_mcp_request(f.options, f.grants, r).reply.status == 200);
  }
  for (auto c : {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"}) {
    r.content_type = c;
    rpc_error(handle_mcp_request(f.options, f.grants, r), 415, -32000);
  }
}

TEST_CASE("a body over the limit is 413") {
  fixture f;
  f.options.max_body_bytes = 64;
  rpc_error(f.post(initialize("2025-11-25")), 413, -32000);
  CHECK_FALSE(f.grants.connected(token_a));
  CHECK(f.post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})").reply.status == 200);
}

TEST_CASE("a whole stateless session as Codex drives it") {
  fixture f;
  auto init = rpc_result(f.post(initialize("2025-06-18", 0), ""));
  CHECK(init["result"]["protocolVersion"] == "2025-06-18");
  CHECK(f.post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", "2025-06-18").reply.status == 202);
  auto list = rpc_result(f.post(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"progressToken":0}}})",
                                "2025-06-18"));
  CHECK(list["result"]["tools"].size() == 2);
  auto d = f.post(call("present_plan", R"({"title":"T"})"), "2025-06-18");
  REQUIRE(d.call);
  auto u = f.grants.remove(token_a);
  REQUIRE(u);
  CHECK(u->connected_servers == std::vector<std::string>{"platform"});
  CHECK(u->tool_calls == 1);
}

}  // namespace mcp_server_test
