// A platform-worker stand-in for platform-web's end-to-end tests: a node HTTP server on
// 127.0.0.1 that records every request the web makes of its worker (method, path, query,
// headers, parsed JSON body) and answers the routes a builder turn and an app-agent run use
// (docs/http-api.md, "Worker endpoints"):
//   POST /sessions/{appId}/messages   a builder turn: one line of text and a successful result,
//                                     at once, or held open after its first text (holdTurns)
//                                     It closes with platform_turn_end: nothing changed, and a
//                                     new session for run R (sessionId ses-R-<n>, n its turns so far)
//   GET  /sessions/{appId}/session-state?runId=R   the same session, asked for
//   POST /sessions/{appId}__agent__{runId}/agent-run   202 started; its status: running
//   GET  /health                      up, not draining
// Everything else a worker without a workspace or opencode answers (404 / 503).
import http from 'node:http';

const sse = (lines) => lines.map((l) => `data: ${JSON.stringify(l)}\n\n`).join('');
const event = (e) => ({ type: 'stream_event', event: e });
const opening = (sessionId, text) => [
  { type: 'system', subtype: 'init', session_id: sessionId },
  event({ type: 'message_start', message: { id: 'm1', role: 'assistant', content: [] } }),
  event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
  event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
];
// The turn's end, and the worker's closing line: nothing changed, the session it keeps.
const closing = (sessionId, text, sessionState) => [
  event({ type: 'content_block_stop', index: 0 }),
  { type: 'assistant', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text }] } },
  { type: 'result', subtype: 'success', is_error: false, result: text, session_id: sessionId },
  { type: 'platform_turn_end', workspaceChanged: false, sessionState },
];

/**
 * Starts the stand-in. Resolves with { url, server, requests, turns(), agentStarts(),
 * sessionStates, holdTurns(on), held, waitFor(what, pred) }:
 * - requests: every request, in arrival order ({ method, path, query, headers, body });
 * - turns(): the bodies of the builder turns' POST /sessions/{appId}/messages;
 * - agentStarts(): the bodies of the app-agent runs' POST .../agent-run;
 * - sessionStates: runId → the session states given for that run, in order;
 * - holdTurns(true): later turns write their first text and stay open; each is in `held` as
 *   { runId, body, release() } (release writes the rest and ends the turn);
 * - waitFor(what, pred): resolves with pred()'s first truthy value, checked at every request.
 */
export function workerStandIn() {
  const requests = [];
  const sessionStates = new Map();
  const held = [];
  const waiters = new Set();
  let holding = false;
  const notify = () => {
    for (const w of [...waiters]) {
      const v = w.pred();
      if (v) {
        waiters.delete(w);
        w.resolve(v);
      }
    }
  };
  // The session a run's latest turn leaves (null before its first), recorded as given.
  const sessionAfter = (runId) => {
    const turns = turnsOf(runId);
    if (turns.length === 0) return null;
    const n = turns.length;
    const state = { runtimeId: turns.at(-1).body.settings.settings.runtimeId, sessionId: `ses-${runId}-${n}`,
      data: `${JSON.stringify({ type: 'stand-in-session', run: runId, turns: n })}\n`, format: 'jsonl' };
    if (!sessionStates.has(runId)) sessionStates.set(runId, []);
    sessionStates.get(runId).push(state);
    return state;
  };
  const turnsOf = (runId) => requests.filter((r) => r.method === 'POST' && /^\/sessions\/[^/]+\/messages$/.test(r.path) && r.body?.runId === runId);
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (d) => { text += d; });
    req.on('end', () => {
      const url = new URL(req.url, 'http://stand-in');
      let body;
      try { body = text ? JSON.parse(text) : undefined; } catch { body = text; }
      const seen = { method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body };
      requests.push(seen);
      const json = (status, obj) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(obj));
      };
      const p = url.pathname;
      if (req.method === 'POST' && /^\/sessions\/[^/]+\/messages$/.test(p)) {
        const sessionId = `ses-${body.runId}-${turnsOf(body.runId).length}`;
        const end = (text) => sse(closing(sessionId, text, sessionAfter(body.runId))) + 'data: [DONE]\n\n';
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (holding) {
          res.write(sse(opening(sessionId, 'Held. ')));
          held.push({ runId: body.runId, body, release: () => res.end(end('Held. ')) });
        } else {
          res.end(sse(opening(sessionId, 'Noted.')) + end('Noted.'));
        }
      } else if (req.method === 'GET' && /^\/sessions\/[^/]+\/session-state$/.test(p)) {
        json(200, { sessionState: sessionAfter(url.searchParams.get('runId')) });
      } else if (req.method === 'POST' && /^\/sessions\/[^/]+__agent__[^/]+\/agent-run$/.test(p)) {
        json(202, { status: 'started', runId: body.runId });
      } else if (req.method === 'GET' && /\/agent-run\/[^/]+$/.test(p)) {
        json(200, { runId: p.split('/').at(-1), status: 'running' });
      } else if (req.method === 'POST' && /\/stop$/.test(p)) {
        json(202, { status: 'stopping' });
      } else if (req.method === 'GET' && p === '/health') {
        json(200, { ok: true, draining: false, turnsRunning: 0, agentRunsRunning: 0, sessions: 0, turnsStarted: 0, agentRuns: 0, agentRunsStarted: 0 });
      } else if (req.method === 'PUT' && /^\/sessions\/[^/]+\/files$/.test(p)) {
        json(200, { ok: true });
      } else {
        // No workspace snapshot, no build, no opencode: what a worker without them answers.
        json(/source-snapshot|preview-artifact/.test(p) ? 404 : 503, { error: { code: 'runtime_not_available', message: 'not here' } });
      }
      notify();
    });
  });
  const waitFor = (what, pred, ms = 20000) => {
    const now = pred();
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const w = { pred, resolve: (v) => { clearTimeout(w.timer); resolve(v); } };
      w.timer = setTimeout(() => {
        waiters.delete(w);
        reject(new Error(`the worker stand-in: timed out waiting for ${what}`));
      }, ms);
      waiters.add(w);
    });
  };
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}`,
    server,
    requests,
    turns: () => requests.filter((r) => r.method === 'POST' && /^\/sessions\/[^/]+\/messages$/.test(r.path)).map((r) => r.body),
    agentStarts: () => requests.filter((r) => r.method === 'POST' && /\/agent-run$/.test(r.path)).map((r) => r.body),
    sessionStates,
    holdTurns: (on) => { holding = on; },
    held,
    waitFor,
  })));
}
