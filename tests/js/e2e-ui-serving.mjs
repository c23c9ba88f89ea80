// The builder page as platform-web serves it (docs/http-api.md, "The builder page"), from a
// UI directory made here (PLATFORM_UI_DIR): index.html for the page's routes with its security
// headers and no-cache, hashed assets cached for a year, top-level files, JSON 404s for unknown
// API paths, no way out of the directory (dot segments, percent-encoded ones, backslashes,
// NUL), the onboarding page untouched, a rebuilt page served without a restart, and the
// "not built" page when there is no UI directory.
//
// Usage: node e2e-ui-serving.mjs --build DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { harness } from './harness.mjs';

const args = process.argv.slice(2);
const buildDir = path.resolve(args[args.indexOf('--build') + 1] ?? 'build');
const web = path.join(buildDir, 'servers/web/platform-web');
const projectDir = path.resolve(args.includes('--project') ? args[args.indexOf('--project') + 1] : path.join(path.dirname(new URL(import.meta.url).pathname), '../..'));
const { tmp, check, start, run } = harness('platform-ui-serving-');

const csp = "default-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data: blob:; "
  + "style-src 'self' 'unsafe-inline'; font-src 'self' data:; frame-src 'self' http://*.preview.localhost:*; "
  + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";
const indexHtml = '<!doctype html><html><head><script type="module" src="/assets/app-abc123.js"></script></head>'
  + '<body><div id="root"></div></body></html>\n';
const appJs = 'console.log("builder page");\n';
const canary = `canary-${process.pid}-outside-the-ui-dir`;

// node:http, not fetch: fetch normalizes "..", and the path must reach the server as written.
function get(base, p, { method = 'GET', headers = {}, body } = {}) {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path: p, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function assertPage(r, html, what) {
  assert.equal(r.status, 200, `${what}: ${r.status} ${r.text}`);
  assert.equal(r.text, html, what);
  assert.equal(r.headers['content-type'], 'text/html; charset=utf-8', what);
  assert.equal(r.headers['cache-control'], 'no-cache', what);
  assert.equal(r.headers['content-security-policy'], csp, what);
  assert.equal(r.headers['x-frame-options'], 'DENY', what);
  assert.equal(r.headers['x-content-type-options'], 'nosniff', what);
  assert.equal(r.headers['referrer-policy'], 'same-origin', what);
}

const notFoundRoute = '{"error":{"code":"not_found","message":"no such route"}}';

await run(async () => {
  const ui = path.join(tmp, 'ui');
  fs.mkdirSync(path.join(ui, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(ui, 'index.html'), indexHtml);
  fs.writeFileSync(path.join(ui, 'assets', 'app-abc123.js'), appJs);
  fs.writeFileSync(path.join(ui, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  fs.writeFileSync(path.join(ui, '.build-stamp'), canary);
  fs.mkdirSync(path.join(ui, 'assets', 'sub.d'));
  // What a way out of the UI directory would reach.
  fs.writeFileSync(path.join(tmp, 'secret.txt'), canary);
  fs.writeFileSync(path.join(ui, 'assets', '..secret.js'), canary);

  const base = (await start('web', web, [], {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'data'), PLATFORM_WORKER_URL: 'http://127.0.0.1:1',
    PLATFORM_UI_DIR: ui,
  }, /listening on (http:\S+)/)).match[1];

  await check('the page routes answer index.html with the security headers and no-cache', async () => {
    for (const p of ['/', '/w/default/apps/x', '/w/default/apps/x/', '/settings?tab=1', '/apis']) {
      assertPage(await get(base, p), indexHtml, p);
    }
    const head = await get(base, '/w/default', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers['content-security-policy'], csp);
  });

  await check('hashed assets are immutable for a year, with their content type and nosniff', async () => {
    const r = await get(base, '/assets/app-abc123.js');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.text, appJs);
    assert.equal(r.headers['content-type'], 'text/javascript');
    assert.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(r.headers['content-security-policy'], undefined);
    const head = await get(base, '/assets/app-abc123.js', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-length'], String(Buffer.byteLength(appJs)));
    // A missing asset is a 404, never index.html parsed as a script; so is a directory.
    for (const p of ['/assets/app-000000.js', '/assets/sub.d', '/assets/', '/assets']) {
      const miss = await get(base, p);
      assert.equal(miss.status, 404, `${p}: ${miss.text}`);
      assert.match(miss.headers['content-type'], /^application\/json/, p);
    }
  });

  await check('the build\'s .br and .gz files are sent by Accept-Encoding; nothing is compressed per request', async () => {
    // A bundle the size of the real one: compressing it per request took 0.9 s with brotli.
    const big = `export const text = ${JSON.stringify('builder page '.repeat(40000))};\n`;
    fs.writeFileSync(path.join(ui, 'assets', 'big-abc123.js'), big);
    execFileSync('node', [path.join(projectDir, 'scripts/precompress-ui.mjs'), ui], { stdio: 'ignore' });
    assert.ok(fs.existsSync(path.join(ui, 'assets', 'big-abc123.js.br')) && fs.existsSync(path.join(ui, 'assets', 'big-abc123.js.gz')));
    const raw = (enc) => new Promise((resolve, reject) => {
      const { hostname, port } = new URL(base);
      http.get({ host: hostname, port, path: '/assets/big-abc123.js', headers: enc === null ? {} : { 'accept-encoding': enc } }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });
    const br = await raw('gzip, deflate, br');
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'Accept-Encoding');
    assert.equal(br.headers['content-type'], 'text/javascript');
    assert.deepEqual(br.body, fs.readFileSync(path.join(ui, 'assets', 'big-abc123.js.br')), 'the build\'s own .br bytes');
    assert.equal(zlib.brotliDecompressSync(br.body).toString(), big);
    const gz = await raw('gzip');
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(zlib.gunzipSync(gz.body).toString(), big);
    for (const enc of [null, 'identity', 'br;q=0, gzip;q=0']) {
      const plain = await raw(enc);
      assert.equal(plain.headers['content-encoding'], undefined, String(enc));
      assert.equal(plain.body.toString(), big, String(enc));
    }
    // A file the build left uncompressed (under 512 bytes) is sent as it is, even to a client
    // that takes brotli.
    const small = await raw('br');
    assert.equal(small.headers['content-encoding'], 'br');
    const tiny = await get(base, '/assets/app-abc123.js', { headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(tiny.headers['content-encoding'], undefined);
    assert.equal(tiny.text, appJs);
  });

  await check('top-level files of the build are served, revalidated', async () => {
    const r = await get(base, '/favicon.svg');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'image/svg+xml');
    assert.equal(r.headers['cache-control'], 'no-cache');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assertPage(await get(base, '/index.html'), indexHtml, '/index.html');
    assert.equal((await get(base, '/robots.txt')).status, 404);
    // A name with an extension below the top level is no route of the page.
    assert.equal((await get(base, '/w/default/app.js')).status, 404);
  });

  await check('unknown API paths stay JSON 404s; other methods are not the page', async () => {
    for (const p of ['/api/nope', '/api', '/api/', '/api/workspaces/default/nope']) {
      const r = await get(base, p);
      assert.equal(r.status, 404, p);
      assert.equal(r.text, notFoundRoute, p);
      assert.equal(r.headers['content-type'], 'application/json', p);
    }
    const post = await get(base, '/w/default', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(post.status, 404);
    assert.equal(post.text, notFoundRoute);
  });

  await check('no path leaves the UI directory, however it is encoded', async () => {
    const paths = [
      '/assets/../../etc/passwd', '/assets/../../secret.txt', '/assets/../index.html', '/../secret.txt', '/..',
      '/assets/%2e%2e/%2e%2e/etc/passwd', '/assets/%2E%2E/%2E%2E/secret.txt', '/assets/..%2f..%2fsecret.txt',
      '/assets/%2e%2e%2f%2e%2e%2fsecret.txt', '/assets/.%2e/.%2e/secret.txt', '/%2e%2e/secret.txt', '/%2e%2e%2fsecret.txt',
      '/assets/..%5c..%5csecret.txt', '/assets/%5c..%5c..%5csecret.txt', '/assets\\..\\..\\secret.txt',
      '/assets/app-abc123.js%00.png', '/assets/%00', '/index.html%00', '/w/%00/x',
      '/assets/%252e%252e/%252e%252e/secret.txt', '/.build-stamp', '/assets/..secret.js', '/assets/./app-abc123.js',
    ];
    for (const p of paths) {
      const r = await get(base, p);
      assert.equal(r.status, 404, `${p}: ${r.status} ${r.text}`);
      assert.ok(!r.text.includes(canary), `${p} leaked the file outside`);
      assert.ok(!r.text.includes('root:'), `${p} leaked /etc/passwd`);
      assert.notEqual(r.text, indexHtml, `${p} answered the page`);
    }
  });

  await check('/onboarding/provider is the builder page (local mode), with its headers', async () => {
    assertPage(await get(base, '/onboarding/provider'), indexHtml, '/onboarding/provider');
  });

  await check('a rebuilt page is served at once, without a restart', async () => {
    const rebuilt = indexHtml.replace('app-abc123', 'app-def456');
    fs.writeFileSync(path.join(ui, 'index.html'), rebuilt);
    assertPage(await get(base, '/w/default'), rebuilt, 'after the rebuild');
    fs.writeFileSync(path.join(ui, 'index.html'), indexHtml);
  });

  const empty = path.join(tmp, 'no-ui');
  fs.mkdirSync(empty);
  const bare = (await start('web-no-ui', web, [], {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'data-no-ui'), PLATFORM_WORKER_URL: 'http://127.0.0.1:1',
    PLATFORM_UI_DIR: empty,
  }, /listening on (http:\S+)/)).match[1];

  await check('without a built page, / explains how to build it', async () => {
    for (const p of ['/', '/w/default/apps/x']) {
      const r = await get(bare, p);
      assert.equal(r.status, 200, p);
      assert.match(r.text, /not built/);
      assert.match(r.text, /bash scripts\/setup-ui\.sh/);
      assert.equal(r.headers['content-security-policy'], csp);
      assert.equal(r.headers['cache-control'], 'no-cache');
    }
    assert.equal((await get(bare, '/assets/app-abc123.js')).status, 404);
    assert.equal((await get(bare, '/api/nope')).text, notFoundRoute);
    // The server's stderr reaches its log file through this process's pipe: wait for the line.
    const log = path.join(tmp, 'web-no-ui.log');
    for (let i = 0; !/builder page is not built/.test(fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : ''); i += 1) {
      assert.ok(i < 200, 'the server never said the page is not built');
      await new Promise((r) => setTimeout(r, 25));
    }
    // Provider setup is the page's too: the same explanation, the same headers (no inline script).
    const onboarding = await get(bare, '/onboarding/provider');
    assert.equal(onboarding.status, 200);
    assert.match(onboarding.text, /bash scripts\/setup-ui\.sh/);
    assert.equal(onboarding.headers['content-security-policy'], csp);
    assert.doesNotMatch(onboarding.text, /<script/);
  });
});
