/// <reference types="vitest/config" />
import { resolve } from "node:path";
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// The app: index.html (full-page chat), demo/index.html (a store page embedding widget.js) and
// admin/index.html (the operator page, served at /admin/ only when the admin API is on).
// The widget itself is built by vite.widget.config.ts into the same directory afterwards.
const outDir = resolve(import.meta.dirname, "../backend/partchat/static");
const backend = process.env.PARTCHAT_BACKEND ?? "http://127.0.0.1:8000";

export default defineConfig({
  plugins: [react()],
  base: "/",
  build: {
    outDir,
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    rollupOptions: {
      input: {
        main: resolve(import.meta.dirname, "index.html"),
        demo: resolve(import.meta.dirname, "demo/index.html"),
        admin: resolve(import.meta.dirname, "admin/index.html"),
      },
    },
  },
  server: {
    proxy: {
      "/ws": { target: backend, ws: true },
      "/api": { target: backend },
      "/widget.js": { target: backend },
    },
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
    setupFiles: ["src/test/setup.ts"],
    pool: "threads",
    maxWorkers: 2,
  },
});
