// platform-web's OpenAPI document (GET /api/openapi.json, generated from the route table at
// start-up; servers/web/openapi.hpp): a real OpenAPI validator (@seriousme/openapi-schema-validator,
// pinned in package.json) finds it a valid 3.1 document; every row of the route table
// (servers/web/web_routes.cpp) is an operation with a summary, a unique operationId, a tag, its
// security and its path parameters; every code of lib/platform/src/api_error.cpp is in the
// Error schema's enum with its status and meaning; the route answers without a sign-in in
// external mode, the same bytes every time; and docs/http-api.md's generated route list is
// what the document renders.
//
// Usage: node e2e-openapi.mjs --build DIR [--project DIR] [--write-docs]
//   --write-docs rewrites the route list in docs/http-api.md from the document (the fix when
//   the check of the docs fails).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { harness, identityProvider } from './harness.mjs';

const args = process.argv.slice(2);
const buildDir = path.resolve(args[args.indexOf('--build') + 1] ?? 'build');
const projectDir = path.resolve(args.includes('--project') ? args[args.indexOf('--project') + 1]
  : path.join(path.dirname(new URL(import.meta.url).pathname), '../..'));
const writeDocs = args.includes('--write-docs');
const { tmp, check, start, run } = harness('platform-openapi-');

const docsFile = path.join(projectDir, 'docs/http-api.md');
const begin = '<!-- routes:begin: generated from the route table by `node tests/js/e2e-openapi.mjs --build build --write-docs` -->';
const end = '<!-- routes:end -->';
const fixCommand = `node tests/js/e2e-openapi.mjs --build ${path.relative(projectDir, buildDir) || '.'} --write-docs`;
const methods = ['get', 'post', 'put', 'patch', 'delete'];

// The route list of docs/http-api.md: one line per operation, in the document's order (the
// table's).
function renderRoutes(doc) {
  const cell = (s) => String(s).replaceAll('|', '\\|');
  const lines = ['| method | path | who may call | what it does |', '|---|---|---|---|'];
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const m of Object.keys(item).filter((k) => methods.includes(k))) {
      const op = item[m];
      lines.push(`| ${m.toUpperCase()} | \`${p}\` | ${cell(op['x-caller'])} | ${cell(op.summary)} |`);
    }
  }
  return `${begin}\n${lines.join('\n')}\n${end}`;
}

function docsSection(text) {
  const a = text.indexOf(begin);
  const b = text.indexOf(end);
  if (a < 0 || b < a) return null;
  return text.slice(a, b + end.length);
}

// The rows of the route table, read from its source: {"METHOD", "/path", ...
function tableRows() {
  const src = fs.readFileSync(path.join(projectDir, 'servers/web/web_routes.cpp'), 'utf8');
  const table = src.slice(src.indexOf('constexpr route table[] = {'), src.indexOf('// clang-format on'));
  const rows = [...table.matchAll(/\{"(GET|POST|PUT|PATCH|DELETE)",\s*"([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`);
  assert.ok(rows.length > 50, `read only ${rows.length} rows of the route table`);
  return rows;
}

// The closed set of error codes, read from api_error.cpp (as tests/tools/check-error-codes.mjs).
function errorCodes() {
  const src = fs.readFileSync(path.join(projectDir, 'lib/platform/src/api_error.cpp'), 'utf8');
  const codes = [...src.matchAll(/\{api_error::(\w+), \{"(\w+)", (\d+), "((?:[^"\\]|\\.)*)"\}\}/g)]
    .map((m) => ({ code: m[2], status: Number(m[3]), meaning: m[4].replaceAll('\\"', '"') }));
  assert.ok(codes.length > 100, `read only ${codes.length} rows of api_error.cpp`);
  return codes;
}

const operations = (doc) => Object.entries(doc.paths)
  .flatMap(([p, item]) => Object.keys(item).filter((k) => methods.includes(k)).map((m) => ({ key: `${m.toUpperCase()} ${p}`, path: p, item, op: item[m] })));

await run(async () => {
  const idp = identityProvider();
  const web = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'web'), PLATFORM_WORKER_URL: 'http://127.0.0.1:1', ...idp.env,
  }, /listening on (http:\S+)/)).match[1];

  const first = await fetch(`${web}/api/openapi.json`);
  const text = await first.text();
  const doc = JSON.parse(text);

  if (writeDocs) {
    const docs = fs.readFileSync(docsFile, 'utf8');
    const old = docsSection(docs);
    assert.ok(old, `docs/http-api.md has no ${begin} ... ${end} section`);
    fs.writeFileSync(docsFile, docs.replace(old, renderRoutes(doc)));
    console.log(`wrote the route list of ${path.relative(projectDir, docsFile)}`);
    return;
  }

  await check('GET /api/openapi.json answers without a sign-in (external mode), as JSON, the same bytes each time', async () => {
    assert.equal(first.status, 200, text);
    assert.match(first.headers.get('content-type'), /^application\/json/);
    const again = await fetch(`${web}/api/openapi.json`);
    assert.equal(await again.text(), text);
    // Beside a route that does ask for one.
    assert.equal((await fetch(`${web}/api/me`)).status, 401);
  });

  await check('the OpenAPI validator finds a valid OpenAPI 3.1 document', async () => {
    assert.equal(doc.openapi, '3.1.0');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    assert.equal(validator.version, '3.1');
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 4000));
    // The validator does refuse what is not one: a document that breaks the 3.1 schema.
    const broken = structuredClone(doc);
    broken.paths['/api/health'].get.responses = 'none';
    delete broken.info;
    assert.equal((await new Validator().validate(broken)).valid, false);
  });

  await check('every row of the route table is an operation, and every operation a row', async () => {
    const rows = tableRows();
    const ops = operations(doc).map((o) => o.key);
    assert.deepEqual([...ops].sort(), [...rows].sort());
    assert.equal(new Set(rows).size, rows.length, 'a method and path twice in the table');
    assert.ok(ops.includes('GET /api/openapi.json'));
  });

  await check('every operation has a summary, a unique operationId, a tag, its security and id parameters', async () => {
    const ids = new Set();
    const tags = new Set(doc.tags.map((t) => t.name));
    const schemes = Object.keys(doc.components.securitySchemes);
    for (const { key, path: p, item, op } of operations(doc)) {
      assert.ok(typeof op.summary === 'string' && op.summary.length > 0 && !op.summary.includes('\n'), `${key}: summary`);
      assert.ok(op.operationId && !ids.has(op.operationId), `${key}: operationId ${op.operationId}`);
      ids.add(op.operationId);
      assert.equal(op.tags.length, 1, key);
      assert.ok(tags.has(op.tags[0]), `${key}: tag ${op.tags[0]}`);
      assert.ok(typeof op['x-caller'] === 'string' && op['x-caller'], `${key}: who may call`);
      assert.ok(Array.isArray(op.security), `${key}: security`);
      for (const req of op.security) for (const s of Object.keys(req)) assert.ok(schemes.includes(s), `${key}: ${s}`);
      if (op.requestBody) {
        assert.ok(op.requestBody.description, `${key}: body description`);
        assert.equal(op.requestBody.content['application/json'].schema.type, 'object', key);
      }
      for (const r of ['4XX', '5XX']) assert.equal(op.responses[r].$ref, '#/components/responses/Error', `${key}: ${r}`);
      const names = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      assert.deepEqual((item.parameters ?? []).map((x) => x.name), names, `${key}: parameters`);
      for (const x of item.parameters ?? []) {
        assert.equal(x.in, 'path');
        assert.equal(x.required, true);
        assert.equal(x.schema.pattern, '^[A-Za-z0-9_-]{1,128}$');
      }
    }
    const security = (k) => JSON.stringify(operations(doc).find((o) => o.key === k).op.security);
    assert.equal(security('GET /api/health'), '[]');
    assert.equal(security('GET /api/workspaces/{workspace}/apps'), '[{"sessionCookie":[]},{"identityToken":[]}]');
    assert.equal(security('GET /metrics'), '[{"internalToken":[]}]');
    assert.equal(security('POST /api/internal/tool-execute'), '[{"internalToken":[],"runCapability":[]}]');
    const review = operations(doc).find((o) => o.key === 'POST /api/workspaces/{workspace}/apps/{app}/reviews').op;
    assert.equal(review.requestBody.required, false);
    assert.equal(operations(doc).find((o) => o.key === 'POST /api/workspaces').op.requestBody.required, true);
  });

  await check('every error code is in the Error enum, with its status and meaning', async () => {
    const { Error: error, ErrorCode: code } = doc.components.schemas;
    assert.deepEqual(error.required, ['error']);
    assert.deepEqual(error.properties.error.required, ['code', 'message']);
    assert.equal(error.properties.error.properties.code.$ref, '#/components/schemas/ErrorCode');
    const codes = errorCodes();
    assert.deepEqual(code.enum, codes.map((c) => c.code));
    for (const c of codes) {
      assert.deepEqual(code['x-error-codes'][c.code], { status: c.status, meaning: c.meaning }, c.code);
      assert.ok(code.description.includes(`| \`${c.code}\` | ${c.status} | ${c.meaning} |`), c.code);
    }
  });

  await check('docs/http-api.md\'s route list is the one the route table generates', async () => {
    const section = docsSection(fs.readFileSync(docsFile, 'utf8'));
    assert.ok(section, `docs/http-api.md has no ${begin} ... ${end} section`);
    const want = renderRoutes(doc);
    if (section !== want) {
      const have = section.split('\n');
      const lines = want.split('\n');
      const at = lines.findIndex((l, i) => l !== have[i]);
      assert.fail(`the route list differs from the route table's (first at line ${at + 1}: `
        + `have ${JSON.stringify(have[at])}, want ${JSON.stringify(lines[at])}); regenerate it: ${fixCommand}`);
    }
  });
});
