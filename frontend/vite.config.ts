import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Relative base: the app is served from `/` by the API process, and works under any path.
// The manifest lets `npm run size` find the chunks the first route loads.
export default defineConfig({
  base: './',
  plugins: [react()],
  build: { manifest: true, target: 'es2022' },
  server: { proxy: { '/api': 'http://localhost:3000', '/socket.io': { target: 'http://localhost:3000', ws: true } } },
});
