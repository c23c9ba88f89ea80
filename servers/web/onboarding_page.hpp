#pragma once
// The provider setup screen of local mode (spec "Authentication" 6): which runtime CLIs the
// worker found and which credential variables are set (booleans only, from
// /api/setup/detect-provider). Self-contained: no external scripts, styles or fonts.
#include <string_view>

namespace platform::web {

inline constexpr std::string_view onboarding_page = R"html(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Set up a model provider</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 3rem auto; padding: 0 1rem; color: #1d1d1f; }
  h1 { font-size: 1.4rem; }
  table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
  th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #ddd; }
  .ok { color: #0a7f3f; } .no { color: #b3261e; }
  code { background: #f3f3f3; padding: 0 .25rem; border-radius: 3px; }
</style>
</head>
<body>
<h1>Set up a model provider</h1>
<p>The builder runs one of three agent runtimes on the worker. Each needs its CLI installed
and a way to reach its model provider: a CLI login, or an API key variable set in the
worker's environment before it starts.</p>
<table id="runtimes"><thead><tr><th>Runtime</th><th>CLI</th><th>Version</th><th>Usable</th></tr></thead><tbody></tbody></table>
<h2>Credential variables</h2>
<p>Only whether each is set is shown, never its value.</p>
<table id="auth"><thead><tr><th>Variable</th><th>Set</th></tr></thead><tbody></tbody></table>
<p id="status">Asking the worker…</p>
<script>
const cell = (row, text, cls) => { const td = row.insertCell(); td.textContent = text; if (cls) td.className = cls; };
fetch('/api/setup/detect-provider').then(r => r.ok ? r.json() : Promise.reject(r.status)).then(d => {
  const rt = document.querySelector('#runtimes tbody');
  for (const [id, r] of Object.entries(d.runtimes || {})) {
    const row = rt.insertRow();
    cell(row, id); cell(row, r.installed ? 'installed' : 'missing', r.installed ? 'ok' : 'no');
    cell(row, r.version || ''); cell(row, r.usable ? 'yes' : 'no', r.usable ? 'ok' : 'no');
  }
  const au = document.querySelector('#auth tbody');
  for (const [name, set] of Object.entries(d.auth || {})) {
    const row = au.insertRow(); cell(row, name); cell(row, set ? 'set' : 'not set', set ? 'ok' : 'no');
  }
  document.getElementById('status').textContent = 'Restart the worker after changing its environment.';
}).catch(e => { document.getElementById('status').textContent = 'The worker did not answer (' + e + ').'; });
</script>
</body>
</html>
)html";

}  // namespace platform::web
