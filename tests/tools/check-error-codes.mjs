// The error codes form one closed set (lib/platform/src/api_error.cpp): every code the core,
// the adapters and the servers put in an `error` is a row of it, no route writes a status by
// hand, and docs/http-api.md lists every row with its status.
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
  .matchAll(/row\{api_error::(\w+), \{"(\w+)", (\d+), "/g)) {
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

// Where a code is made or compared: fail("x", ...), error{"x", ...}, failure("x", ...),
// .code = "x", code == "x", code != "x".
const made = /\b(?:fail|failure)\("([a-z][a-z0-9_]*)"|\berror\{"([a-z][a-z0-9_]*)"|\.code = "([a-z][a-z0-9_]*)"|code\(\) [!=]= "([a-z][a-z0-9_]*)"|\bcode [!=]= "([a-z][a-z0-9_]*)"/g;
const problems = [];
let seen = 0;
for (const dir of ['lib', 'servers', 'tools']) {
  for (const file of sources(join(root, dir))) {
    const text = readFileSync(file, 'utf8');
    const where = relative(root, file);
    for (const m of text.matchAll(made)) {
      const code = m.slice(1).find(Boolean);
      seen++;
      if (code === 'worker_http_') continue;  // the open family worker_http_<status> (502)
      if (!table.has(code)) problems.push(`${where}: "${code}" is not in the api_error table`);
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

if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`ok   ${table.size} codes; ${seen} places make or compare one, all in the table; docs/http-api.md lists each`);
