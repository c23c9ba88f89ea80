import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';

// node_modules is shared by every app workspace (a link to the platform's installed
// template), so Vite's cache lives in the workspace instead of inside node_modules.
// `base: './'` keeps asset URLs relative: the preview is served from a sub-path.
export default defineConfig({
  plugins: [react(), tailwindcss()],
  base: './',
  cacheDir: '.vite-cache',
  build: { outDir: 'dist', emptyOutDir: true },
});
