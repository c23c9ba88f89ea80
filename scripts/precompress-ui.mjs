// Compresses the built page's text files once, at build time: `<file>.br` (brotli, best) and
// `<file>.gz` (gzip, best) beside each, which platform-web sends by the request's
// Accept-Encoding (platform/static_site.hpp). Compressing per request cost 0.9 s for the main
// bundle with brotli (issue 34); this costs it once per build.
//   node scripts/precompress-ui.mjs ui/dist
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const root = process.argv[2];
if (!root || !fs.existsSync(root)) {
  console.error('usage: node scripts/precompress-ui.mjs <dist dir>');
  process.exit(2);
}
const compressible = /\.(js|mjs|css|html|svg|json|txt|map|wasm)$/i;
let files = 0;
let before = 0;
let after = 0;
const walk = (dir) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.isFile() && compressible.test(e.name)) {
      const bytes = fs.readFileSync(p);
      if (bytes.length < 512) continue;  // smaller than a packet: not worth a header
      const br = zlib.brotliCompressSync(bytes, {
        params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
      });
      const gz = zlib.gzipSync(bytes, { level: 9 });
      fs.writeFileSync(`${p}.br`, br);
      fs.writeFileSync(`${p}.gz`, gz);
      files += 1;
      before += bytes.length;
      after += br.length;
    }
  }
};
walk(root);
console.error(`precompress-ui: ${files} files, ${before} bytes, ${after} as brotli`);
