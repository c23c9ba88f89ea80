// Benchmark: the builder page's static files as platform-web serves them from the built
// ui/dist (issue 34, goal: no static asset slower than 20 ms on loopback). Each file of the
// build, asked `rounds` times with a browser's Accept-Encoding and once without: min, median
// and max ms to the last byte per file, and the bytes sent. Bounded: rounds x files requests.
//
// Usage: node ui_assets_bench.mjs --build DIR --project DIR [--rounds 20]
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { harness } from '../js/harness.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const rounds = Number(opt('--rounds', '20'));
const { tmp, start, run } = harness('platform-ui-bench-');

function fetchMs(base, p, enc) {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    http.get({ host: hostname, port, path: p, headers: enc ? { 'accept-encoding': enc } : {} }, (res) => {
      let bytes = 0;
      res.on('data', (c) => { bytes += c.length; });
      res.on('end', () => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, bytes, encoding: res.headers['content-encoding'] ?? 'identity' }));
    }).on('error', reject);
  });
}

await run(async () => {
  const ui = path.join(projectDir, 'ui/dist');
  if (!fs.existsSync(path.join(ui, 'index.html'))) {
    console.log('ui assets bench: skipped (no ui/dist: bash scripts/setup-ui.sh)');
    return;
  }
  const base = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'data'), PLATFORM_WORKER_URL: 'http://127.0.0.1:1', PLATFORM_UI_DIR: ui,
  }, /listening on (http:\S+)/)).match[1];
  const files = ['/'].concat(fs.readdirSync(path.join(ui, 'assets')).filter((f) => !/\.(br|gz)$/.test(f)).map((f) => `/assets/${f}`));
  // The server's very first answer (its first file read, the first connection) apart.
  const cold = await fetchMs(base, '/', 'gzip, br');
  console.log(`ui assets: the server's first response ${cold.ms.toFixed(2)} ms (cold)`);
  let worst = 0;
  for (const f of files) {
    for (const enc of ['gzip, deflate, br, zstd', '']) {
      const ms = [];
      let last;
      for (let i = 0; i < (enc ? rounds : 3); i++) {
        last = await fetchMs(base, f, enc);
        ms.push(last.ms);
      }
      ms.sort((a, b) => a - b);
      worst = Math.max(worst, ms.at(-1));
      console.log(`ui asset ${f.slice(0, 60)} [${last.encoding}]: ${ms[0].toFixed(2)} / ${ms[Math.floor(ms.length / 2)].toFixed(2)} / ${ms.at(-1).toFixed(2)} ms, ${last.bytes} bytes`);
    }
  }
  console.log(`ui assets: slowest response ${worst.toFixed(2)} ms (goal <= 20)`);
});
