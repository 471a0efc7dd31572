import { resolve } from "node:path";
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// widget.js: one self-contained IIFE (React, app code and CSS inlined), not hashed, so a
// host page can use a stable <script src="https://HOST/widget.js">. Runs after the app
// build, which empties the output directory, so it must not empty it again.
export default defineConfig({
  plugins: [react()],
  define: {
    "process.env.NODE_ENV": JSON.stringify("production"),
  },
  build: {
    outDir: resolve(import.meta.dirname, "../backend/partchat/static"),
    emptyOutDir: false,
    target: "es2020",
    sourcemap: false,
    cssCodeSplit: false,
    lib: {
      entry: resolve(import.meta.dirname, "src/widget/main.tsx"),
      formats: ["iife"],
      name: "partchatWidgetBundle",
      fileName: () => "widget.js",
    },
  },
});
