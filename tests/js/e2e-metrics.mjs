// GET /metrics on both servers (issue 36; docs/operations.md, "Metrics"): platform-web +
// platform-worker + the real Claude Code CLI + the scripted model server. One builder turn
// runs; then each server's /metrics is refused without the internal token and, with it, is
// read by Debian's python3-prometheus-client (prometheus_client.parser) plus the stricter rules
// of the text format 0.0.4 it does not check itself: the turn counters went up for the
// runtime and outcome, the histograms have _bucket (cumulative, up to +Inf), _sum and _count,
// the refusal was counted by its code, and no workspace, app or run id nor the prompt is in it.
//
// Usage: node e2e-metrics.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { harness, SseReader, use, toolTurn, endTurn } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const { tmp, check, start, run } = harness('platform-metrics-');
const token = 'internal-token-for-the-metrics-e2e-0123456789';
const prompt = 'Metrics probe 5c1e: which files does the app have?';

const scenario = {
  turns: [
    toolTurn(use('ls1', 'Bash', { command: 'ls src', description: 'List the sources' })),
    endTurn('The app has App.tsx and main.tsx.'),
  ],
  aux: endTurn('Title'),
};

// Debian's python3 (where python3-prometheus-client is installed), not a pyenv shim's.
const python = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

// Reads the exposition text on stdin with prometheus_client's parser, and holds it to the
// rules of the format that parser lets pass: every line a HELP, a TYPE or a well-formed
// sample; one HELP and one TYPE per family, before its samples; every sample in a typed
// family (the parser makes an untyped family of a stray one); no sample twice; a counter's
// name ending in _total; each histogram series with increasing le buckets ending at +Inf,
// running totals, _count equal to the +Inf bucket, and a _sum. Prints the families as JSON.
const strictParser = String.raw`
import json, math, re, sys
from prometheus_client.parser import text_string_to_metric_families

text = sys.stdin.read()
problems = []
if not text.endswith('\n'):
    problems.append('the text does not end with a line feed')
name = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
label = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
value = r'(?:[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]Inf|NaN)'
sample_re = re.compile(r'^(' + name + r')(?:\{(' + label + r'(?:,' + label + r')*)?\})? ' + value + r'$')
help_re = re.compile(r'^# HELP (' + name + r') (?:[^\\\n]|\\[\\n])*$')
type_re = re.compile(r'^# TYPE (' + name + r') (counter|gauge|histogram|summary|untyped)$')
helped, typed, sampled, series = set(), {}, set(), set()
for line in text.split('\n')[:-1]:
    m = help_re.match(line) or type_re.match(line)
    if m:
        fam = m.group(1)
        kind = 'HELP' if line.startswith('# HELP') else 'TYPE'
        seen = helped if kind == 'HELP' else typed
        if fam in seen:
            problems.append(kind + ' twice for ' + fam)
        if fam in sampled:
            problems.append(kind + ' after the samples of ' + fam)
        if kind == 'HELP':
            helped.add(fam)
        else:
            typed[fam] = m.group(2)
        continue
    m = sample_re.match(line)
    if not m:
        problems.append('not a line of the format: ' + line)
        continue
    sample = m.group(1)
    fam = sample
    for suffix in ('_bucket', '_sum', '_count'):
        if sample.endswith(suffix) and typed.get(sample[:-len(suffix)]) == 'histogram':
            fam = sample[:-len(suffix)]
    if fam not in typed or fam not in helped:
        problems.append('a sample without its HELP and TYPE before it: ' + line)
    if line.rsplit(' ', 1)[0] in series:
        problems.append('a sample twice: ' + line)
    series.add(line.rsplit(' ', 1)[0])
    sampled.add(fam)
for fam, kind in typed.items():
    if kind == 'counter' and not fam.endswith('_total'):
        problems.append('a counter not named *_total: ' + fam)

out = {}
for f in text_string_to_metric_families(text):
    if f.type in ('untyped', 'unknown'):
        problems.append('an untyped family: ' + f.name)
    if not f.documentation:
        problems.append('a family without HELP: ' + f.name)
    samples = [{'name': s.name, 'labels': s.labels, 'value': s.value} for s in f.samples]
    if f.type == 'histogram':
        by_series = {}
        for s in f.samples:
            key = json.dumps(sorted((k, v) for k, v in s.labels.items() if k != 'le'))
            by_series.setdefault(key, {'buckets': [], 'sum': None, 'count': None})
            entry = by_series[key]
            if s.name == f.name + '_bucket':
                entry['buckets'].append((float(s.labels['le']), s.value))
            elif s.name == f.name + '_sum':
                entry['sum'] = s.value
            elif s.name == f.name + '_count':
                entry['count'] = s.value
        for key, entry in by_series.items():
            b = entry['buckets']
            if not b or b[-1][0] != math.inf:
                problems.append(f.name + ' ' + key + ': no +Inf bucket last')
            if any(b[i][0] >= b[i + 1][0] for i in range(len(b) - 1)):
                problems.append(f.name + ' ' + key + ': le not increasing')
            if any(b[i][1] > b[i + 1][1] for i in range(len(b) - 1)):
                problems.append(f.name + ' ' + key + ': buckets are not running totals')
            if entry['sum'] is None or entry['count'] is None:
                problems.append(f.name + ' ' + key + ': no _sum or _count')
            elif b and entry['count'] != b[-1][1]:
                problems.append(f.name + ' ' + key + ': _count is not the +Inf bucket')
    out[f.name] = {'type': f.type, 'help': f.documentation, 'samples': samples}
print(json.dumps({'problems': problems, 'families': out}))
`;

function parseStrictly(text) {
  const r = spawnSync(python, ['-c', strictParser], { input: text, encoding: 'utf8' });
  assert.equal(r.status, 0, `the parser failed: ${r.stderr}`);
  const { problems, families } = JSON.parse(r.stdout);
  assert.deepEqual(problems, [], `not strict Prometheus text:\n${problems.join('\n')}\n---\n${text}`);
  return families;
}

// A family's sample value for a sample name and labels (0 when it has no such sample).
function valueOf(families, family, sample, labels = {}) {
  const f = families[family];
  assert.ok(f, `no family ${family}`);
  const s = f.samples.find((x) => x.name === sample && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
  return s ? s.value : 0;
}

await run(async () => {
  fs.writeFileSync(path.join(tmp, 'scenario.json'), JSON.stringify(scenario));
  const model = await start('model', 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', path.join(tmp, 'scenario.json'), '--port', '0', '--idle-exit', '600'], {}, /^(\d+)\n/m);
  const worker = (await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'data'),
    PLATFORM_APP_TEMPLATE_DIR: path.join(projectDir, 'templates/app-workspace'),
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${model.match[1]}`, ANTHROPIC_API_KEY: 'scripted-model-key',
    CLAUDE_CODE_MAX_RETRIES: '0', INTERNAL_API_TOKEN: token,
  }, /listening on (http:\S+)/)).match[1];
  const web = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'web'), PLATFORM_WORKER_URL: worker,
    INTERNAL_API_TOKEN: token,
  }, /listening on (http:\S+)/)).match[1];
  const call = (method, p, body) => fetch(web + p, { method, headers: body ? { 'content-type': 'application/json' } : {},
    body: body && JSON.stringify(body) });
  const metrics = async (origin, headers = { authorization: `Bearer ${token}` }) => {
    const res = await fetch(`${origin}/metrics`, { headers });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };

  const before = { web: parseStrictly((await metrics(web)).text), worker: parseStrictly((await metrics(worker)).text) };
  const app = await (await call('POST', '/api/workspaces/default/apps', { name: 'Metrics' })).json();
  const builderRun = await (await call('POST', `/api/workspaces/default/apps/${app.id}/runs`, {})).json();
  const runPath = `/api/workspaces/default/apps/${app.id}/runs/${builderRun.id}`;
  const ids = [app.id, builderRun.id];

  await check('a builder turn runs to its end (the real CLI, the scripted model)', async () => {
    const res = await call('POST', `${runPath}/chat`, { messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: prompt }] }] });
    assert.equal(res.status, 200);
    const chunks = (await new SseReader(res, { payload: true }).toEnd()).filter((e) => e !== '[DONE]').map((e) => JSON.parse(e));
    assert.ok(chunks.some((c) => c.type === 'tool-input-available' && c.toolName === 'Bash'), 'the Bash card');
    assert.equal((await (await call('GET', `${runPath}/chat`)).json()).status, 'completed');
  });

  const refusals = {};
  await check('without the internal token (or with another) both servers refuse /metrics with 401', async () => {
    for (const [name, origin] of [['web', web], ['worker', worker]]) {
      for (const headers of [{}, { authorization: 'Bearer not-the-internal-token-0123456789abcdef' }]) {
        const r = await metrics(origin, headers);
        assert.equal(r.status, 401, `${name}: ${r.status} ${r.text}`);
        const code = JSON.parse(r.text).error.code;
        refusals[name] = [...(refusals[name] ?? []), code];
        assert.ok(!r.text.includes('# TYPE'), `${name} leaked metrics in a refusal`);
      }
    }
  });

  await check('web: strict Prometheus text; the turn counted for runtime-a / completed; histograms whole; no id, no prompt', async () => {
    const r = await metrics(web);
    assert.equal(r.status, 200);
    assert.match(r.type, /^text\/plain; version=0\.0\.4/);
    const f = parseStrictly(r.text);
    const labels = { runtime: 'runtime-a', outcome: 'completed' };
    // prometheus_client names a counter family without its _total; its samples keep it.
    const grew = (family, sample, l) => valueOf(f, family, sample, l) - valueOf(before.web, family, sample, l);
    assert.equal(grew('platform_web_builder_turns_ended', 'platform_web_builder_turns_ended_total', labels), 1);
    assert.equal(grew('platform_web_builder_turns_started', 'platform_web_builder_turns_started_total', { runtime: 'runtime-a' }), 1);
    assert.equal(f.platform_web_builder_turns_ended.type, 'counter');
    for (const h of ['platform_web_chunk_append_seconds', 'platform_web_first_chunk_seconds', 'platform_web_store_seconds',
      'platform_web_cache_seconds']) {
      assert.equal(f[h]?.type, 'histogram', h);
      for (const suffix of ['_bucket', '_sum', '_count']) assert.ok(f[h].samples.some((s) => s.name === h + suffix), h + suffix);
    }
    assert.ok(valueOf(f, 'platform_web_chunk_append_seconds', 'platform_web_chunk_append_seconds_count', { stream: 'builder_turn' }) > 0);
    assert.equal(valueOf(f, 'platform_web_first_chunk_seconds', 'platform_web_first_chunk_seconds_count', { runtime: 'runtime-a' }), 1);
    assert.ok(valueOf(f, 'platform_web_store_seconds', 'platform_web_store_seconds_count', { op: 'end_turn' }) >= 1);
    assert.ok(valueOf(f, 'platform_web_cache_seconds', 'platform_web_cache_seconds_count', { op: 'append' }) > 0);
    for (const g of ['platform_web_live_streams', 'platform_web_stream_viewers', 'platform_web_hub_followed_streams']) {
      assert.equal(f[g]?.type, 'gauge', g);
    }
    assert.equal(valueOf(f, 'platform_web_live_streams', 'platform_web_live_streams', { stream: 'builder_turn' }), 0, 'the turn is over');
    // The refusals above, by the code of their bodies.
    for (const code of new Set(refusals.web)) {
      const n = refusals.web.filter((c) => c === code).length;
      assert.ok(valueOf(f, 'platform_web_errors', 'platform_web_errors_total', { code }) >= n, `errors_total{code="${code}"}`);
    }
    for (const secret of [...ids, prompt, 'Metrics probe', 'App.tsx']) assert.ok(!r.text.includes(secret), `the text holds ${secret}`);
    const labelValues = Object.values(f).flatMap((x) => x.samples.flatMap((s) => Object.values(s.labels)));
    assert.ok(!labelValues.includes('default'), 'the workspace id as a label value');
    assert.ok(!/workspace|app_id|run_id|user/i.test(Object.values(f).flatMap((x) => x.samples.flatMap((s) => Object.keys(s.labels))).join(' ')),
      'a label named after an id');
  });

  await check('worker: strict Prometheus text; the turn started and ended for runtime-a; sandbox starts; no id, no prompt', async () => {
    const r = await metrics(worker);
    assert.equal(r.status, 200);
    assert.match(r.type, /^text\/plain; version=0\.0\.4/);
    const f = parseStrictly(r.text);
    const grew = (family, sample, l) => valueOf(f, family, sample, l) - valueOf(before.worker, family, sample, l);
    assert.equal(grew('platform_worker_builder_turns_started', 'platform_worker_builder_turns_started_total', { runtime: 'runtime-a' }), 1);
    assert.equal(grew('platform_worker_builder_turns_ended', 'platform_worker_builder_turns_ended_total',
      { runtime: 'runtime-a', outcome: 'completed' }), 1);
    assert.ok(grew('platform_worker_sandbox_starts', 'platform_worker_sandbox_starts_total') >= 1, 'the turn opened a jail');
    assert.equal(valueOf(f, 'platform_worker_sandbox_failures', 'platform_worker_sandbox_failures_total'), 0);
    for (const h of ['platform_worker_sandbox_open_seconds', 'platform_worker_turn_first_line_seconds']) {
      assert.equal(f[h]?.type, 'histogram', h);
      for (const suffix of ['_bucket', '_sum', '_count']) assert.ok(f[h].samples.some((s) => s.name === h + suffix), h + suffix);
    }
    assert.equal(valueOf(f, 'platform_worker_turn_first_line_seconds', 'platform_worker_turn_first_line_seconds_count', { runtime: 'runtime-a' }), 1);
    assert.equal(valueOf(f, 'platform_worker_builder_turns_running', 'platform_worker_builder_turns_running'), 0);
    for (const code of new Set(refusals.worker)) {
      assert.ok(valueOf(f, 'platform_worker_errors', 'platform_worker_errors_total', { code }) >= 1, `errors_total{code="${code}"}`);
    }
    for (const secret of [...ids, prompt, 'Metrics probe', 'App.tsx']) assert.ok(!r.text.includes(secret), `the text holds ${secret}`);
  });
});
