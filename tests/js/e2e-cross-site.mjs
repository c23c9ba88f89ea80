// The cross-site request guard on both servers (platform/request_guard.hpp): requests a browser
// makes from another site, from an app preview's origin (same-site on *.localhost), from a
// sandboxed frame (Origin: null) or through a DNS-rebinding host name are refused on every
// state-changing route of platform-web before anything runs; JSON routes refuse bodies that are
// not declared JSON; platform-worker refuses every request a browser labels. The platform's own
// page (same origin) and non-browser clients still work.
//
// Usage: node e2e-cross-site.mjs --build DIR
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { harness } from './harness.mjs';

const args = process.argv.slice(2);
const buildDir = path.resolve(args[args.indexOf('--build') + 1] ?? 'build');
const { tmp, check, start, run } = harness('platform-cross-site-');

// node:http, not fetch: fetch will not send a forged Host, Origin or Sec-Fetch-Site.
function send(base, method, p, { headers = {}, body } = {}) {
  const u = new URL(base);
  // Declared, so a DELETE's body is framed too (node sends it unframed otherwise).
  if (body !== undefined) headers = { ...headers, 'content-length': Buffer.byteLength(body) };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path: p, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        let json;
        try { json = JSON.parse(text); } catch { json = undefined; }
        resolve({ status: res.statusCode, json, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const expectRefusal = (r, status, code, what) => {
  assert.equal(r.status, status, `${what}: ${r.status} ${r.text}`);
  assert.equal(r.json?.error?.code, code, `${what}: ${r.text}`);
};

await run(async () => {
  const worker = (await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'worker'),
  }, /listening on (http:\S+)/)).match[1];
  const web = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'web'), PLATFORM_WORKER_URL: worker,
  }, /listening on (http:\S+)/)).match[1];
  const webHost = new URL(web).host;
  const ws = '/api/workspaces/default';
  const A = `${ws}/apps/app_x`;
  const webRoutes = [
    ['POST', '/api/workspaces'], ['POST', `${ws}/members`], ['POST', `${ws}/apps`], ['POST', `${A}/runs`],
    ['POST', `${A}/runs/run_x/chat`], ['PATCH', `${A}/agents`], ['POST', `${A}/agents/approval`], ['POST', `${A}/publish`],
    ['POST', `${A}/agent-runs`], ['POST', `${A}/agent-runs/run_x/stream?startOnly=1`],
    ['POST', `${A}/app-tools/lookup/execute`], ['POST', `${A}/app-tools/lookup/report-failure`], ['POST', `${A}/data`],
    ['PUT', `${A}/integrations/secrets`], ['DELETE', `${A}/integrations/secrets`],
    ['PUT', `${ws}/integrations/oauth-providers/github`], ['DELETE', `${ws}/integrations/oauth-providers/github`],
    ['DELETE', `${A}/integrations/oauth/github`],
    ['POST', '/api/internal/agent-run-complete'], ['POST', '/api/internal/tool-execute'],
    ['POST', '/api/internal/tool-failure-report'], ['POST', '/api/internal/app-data'],
    ['POST', '/api/internal/integration-requirements'], ['POST', '/api/internal/workspace-integrations'],
  ];
  const body = JSON.stringify({ name: 'x', userId: 'mallory', role: 'admin', messages: [] });
  const json = { 'content-type': 'application/json' };

  await check('a page on another site drives no state-changing route of platform-web', async () => {
    for (const [method, p] of webRoutes) {
      // A form post or a no-cors fetch: text/plain, as a browser sends it.
      expectRefusal(await send(web, method, p, {
        headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' }, body,
      }), 403, 'cross_site_request', `${method} ${p} cross-site`);
      // Fetch Metadata alone, and Origin alone (a browser without Fetch Metadata), each suffice.
      expectRefusal(await send(web, method, p, { headers: { 'sec-fetch-site': 'cross-site', ...json }, body }),
        403, 'cross_site_request', `${method} ${p} Sec-Fetch-Site only`);
      expectRefusal(await send(web, method, p, { headers: { origin: 'https://evil.example', ...json }, body }),
        403, 'cross_site_request', `${method} ${p} Origin only`);
    }
  });

  await check('an app preview (same-site *.localhost) and a sandboxed frame (Origin: null) are refused too', async () => {
    for (const [method, p] of webRoutes) {
      expectRefusal(await send(web, method, p, {
        headers: { origin: `http://app_x.preview.localhost:${new URL(web).port}`, 'sec-fetch-site': 'same-site', ...json }, body,
      }), 403, 'cross_site_request', `${method} ${p} from the preview origin`);
      expectRefusal(await send(web, method, p, { headers: { origin: 'null', 'sec-fetch-site': 'cross-site', ...json }, body }),
        403, 'cross_site_request', `${method} ${p} Origin null`);
    }
  });

  await check('a body that is not declared JSON is refused on every JSON route, even without browser headers', async () => {
    for (const [method, p] of webRoutes) {
      expectRefusal(await send(web, method, p, { headers: { 'content-type': 'text/plain;charset=UTF-8' }, body }),
        415, 'unsupported_media_type', `${method} ${p} text/plain`);
      expectRefusal(await send(web, method, p, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' }),
        415, 'unsupported_media_type', `${method} ${p} form`);
    }
  });

  await check('a DNS-rebinding host name reaches neither server in local mode', async () => {
    const rebound = { host: `rebind.example:${new URL(web).port}`, origin: `http://rebind.example:${new URL(web).port}`,
      'sec-fetch-site': 'same-origin', ...json };
    expectRefusal(await send(web, 'POST', `${ws}/apps`, { headers: rebound, body }), 421, 'host_not_allowed', 'web POST');
    expectRefusal(await send(web, 'GET', '/api/me', { headers: { host: 'rebind.example' } }), 421, 'host_not_allowed', 'web GET');
    expectRefusal(await send(worker, 'GET', '/detect-provider', { headers: { host: 'rebind.example' } }),
      421, 'host_not_allowed', 'worker GET');
  });

  await check('nothing the refused requests asked for happened', async () => {
    const members = await send(web, 'GET', `${ws}/members`);
    assert.equal(members.status, 200, members.text);
    assert.ok(!members.json.members.some((m) => m.userId === 'mallory'), members.text);
    const health = await send(worker, 'GET', '/health');
    assert.equal(health.json.turnsStarted, 0, health.text);
    assert.equal(health.json.agentRunsStarted, 0, health.text);
  });

  await check("the platform's own page (same origin) and programs without browser headers still work", async () => {
    const page = { host: webHost, origin: web, 'sec-fetch-site': 'same-origin', ...json };
    const made = await send(web, 'POST', `${ws}/apps`, { headers: page, body: JSON.stringify({ name: 'From the page' }) });
    assert.equal(made.status, 201, made.text);
    const friend = await send(web, 'POST', `${ws}/members`, { headers: page, body: JSON.stringify({ userId: 'friend', role: 'viewer' }) });
    assert.equal(friend.status, 200, friend.text);
    const program = await send(web, 'POST', `${ws}/apps`, { headers: json, body: JSON.stringify({ name: 'From a program' }) });
    assert.equal(program.status, 201, program.text);
    // A cross-site GET is not refused by the guard (a navigation, an OAuth callback); without
    // CORS its answer cannot be read by the other site.
    const read = await send(web, 'GET', `${ws}/apps/${made.json.id}`, { headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' } });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.json.name, 'From the page');
  });

  await check('platform-worker answers no browser at all, on any route and method', async () => {
    const workerRoutes = [
      ['POST', '/sessions/app1/messages'], ['PUT', '/sessions/app1/files'], ['POST', '/sessions/app1__agent__r1/agent-run'],
      ['GET', '/sessions/app1__agent__r1/agent-run/r1/events'], ['GET', '/sessions/app1/session-state?runId=r1'],
      ['GET', '/sessions/app1/source-snapshot'], ['POST', '/mcp/platform'], ['POST', '/mcp/app_tools'], ['POST', '/mcp/app_data'],
      ['GET', '/mcp/platform'], ['DELETE', '/mcp/platform'], ['GET', '/detect-provider'], ['GET', '/opencode/models'],
    ];
    for (const [method, p] of workerRoutes) {
      const hasBody = method !== 'GET' && method !== 'DELETE';
      for (const headers of [{ 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'cross-site' }, { origin: web },
        { origin: 'https://evil.example' }]) {
        expectRefusal(await send(worker, method, p, { headers: { ...headers, ...json }, body: hasBody ? '{}' : undefined }),
          403, 'cross_site_request', `worker ${method} ${p} ${JSON.stringify(headers)}`);
      }
      if (hasBody) {
        expectRefusal(await send(worker, method, p, { headers: { 'content-type': 'text/plain' }, body: '{}' }),
          415, 'unsupported_media_type', `worker ${method} ${p} text/plain`);
      }
    }
    const health = await send(worker, 'GET', '/health');
    assert.equal(health.json.turnsStarted, 0, health.text);
    // The web server, a program, still reaches it.
    const detect = await send(web, 'GET', '/api/setup/detect-provider');
    assert.equal(detect.status, 200, detect.text);
  });
});
