import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';

// platform-web serves dist/: hashed files under /assets are immutable, everything else
// falls back to index.html. The dev server proxies the API to a running platform-web.
export default defineConfig({
  plugins: [react(), tailwindcss()],
  build: { outDir: 'dist', emptyOutDir: true, assetsDir: 'assets', sourcemap: false, chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/api': { target: process.env.PLATFORM_WEB_URL ?? 'http://127.0.0.1:8787', changeOrigin: false } } },
});
