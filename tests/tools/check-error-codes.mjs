// The error codes form one closed set (lib/platform/src/api_error.cpp): every code the core,
// the adapters and the servers put in an `error` names a row of it (api_error::x, not text),
// no route writes a status by hand, and docs/http-api.md lists every row with its status.
//   node tests/tools/check-error-codes.mjs <source root>
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = process.argv[2];
if (!root) {
  console.error('usage: check-error-codes.mjs <source root>');
  process.exit(2);
}

const table = new Map();
for (const m of readFileSync(join(root, 'lib/platform/src/api_error.cpp'), 'utf8')
  .matchAll(/\{api_error::(\w+), \{"(\w+)", (\d+), "/g)) {
  if (m[1] !== m[2]) throw new Error(`row ${m[1]} is named ${m[2]}`);
  table.set(m[2], Number(m[3]));
}
if (table.size < 100) throw new Error(`read only ${table.size} rows of the table`);

function* sources(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.(cpp|hpp)$/.test(name)) yield path;
  }
}

// A code of one's own is made with its row, fail(api_error::x, ...) or error_of(api_error::x,
// ...), which the compiler checks. Text in its place is what this looks for: a code spelled as
// a string where one is made or compared (fail("x"), fail_relayed("x"), error{"x"},
// failure("x"), .code = "x", code == "x", code != "x"). fail_relayed passes on a peer's code
// and takes no literal, but for the open family worker_http_<status>.
const made = /\b(?:fail|fail_relayed|failure|error_of)\("([a-z][a-z0-9_]*)"|\berror\{"([a-z][a-z0-9_]*)"|\.code = "([a-z][a-z0-9_]*)"|code\(\) [!=]= "([a-z][a-z0-9_]*)"|\bcode [!=]= "([a-z][a-z0-9_]*)"/g;
const row = /\bapi_error::([a-z][a-z0-9_]*)\b/g;
const problems = [];
let rows = 0;
for (const dir of ['lib', 'servers', 'tools']) {
  for (const file of sources(join(root, dir))) {
    const text = readFileSync(file, 'utf8');
    const where = relative(root, file);
    for (const m of text.matchAll(made)) {
      const code = m.slice(1).find(Boolean);
      if (code === 'worker_http_') continue;  // the open family worker_http_<status> (502)
      problems.push(`${where}: "${code}" spelled as text: name its row, api_error::${code}`);
    }
    for (const m of text.matchAll(row)) {
      rows++;
      if (!table.has(m[1])) problems.push(`${where}: api_error::${m[1]} has no row in api_error.cpp`);
    }
    if (dir === 'servers' && /send_error\(\s*res,\s*\d/.test(text)) {
      problems.push(`${where}: a status written by hand (send_error takes an api_error)`);
    }
  }
}

const docs = readFileSync(join(root, 'docs/http-api.md'), 'utf8');
for (const [code, status] of table) {
  if (!docs.includes(`| \`${code}\` | ${status} |`)) problems.push(`docs/http-api.md: no row "| \`${code}\` | ${status} |"`);
}

// The Integration tool result's errorCode set, and docs/http-executor.md's list of it.
const integration = [...readFileSync(join(root, 'lib/platform/src/integration_error.cpp'), 'utf8')
  .matchAll(/\{integration_error::(\w+), \{"([A-Z_]+)", error_category::(\w+), /g)];
if (integration.length < 30) throw new Error(`read only ${integration.length} errorCode rows`);
const executorDocs = readFileSync(join(root, 'docs/http-executor.md'), 'utf8');
for (const [, name, code, category] of integration) {
  if (name.toUpperCase() !== code) problems.push(`integration_error::${name} is named ${code}`);
  if (!executorDocs.includes(`| \`${code}\` | ${category} |`)) {
    problems.push(`docs/http-executor.md: no row "| \`${code}\` | ${category} |"`);
  }
}

if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`ok   ${table.size} codes and ${integration.length} errorCode values; ${rows} places name a row, none spells a code as text; docs/http-api.md lists each`);
