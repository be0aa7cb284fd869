import { defineConfig } from "vite"

/** The console is served by the service itself under /console; its API calls go to the same origin. */
export default defineConfig({
  base: "/console/",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022"
  }
})
