// An esbuild plugin: what is large and needed only on first use stays out of the programs' bundles,
// which every start reads and compiles (from its code cache, but read whole all the same):
// - the Swagger UI's script and styles (1.9 MB of strings inside @effect/platform, a dependency of
//   the package), read from the installed package when /docs is first asked for;
// - the tokenizer (2.7 MB of tables), bundled on its own beside the programs (`VENDORED`) and
//   required from there with the first context block or extraction.
import * as NodePath from "node:path"

const SWAGGER_ASSETS = /internal\/httpApiSwagger\.js$/

/** Packages bundled on their own into dist/vendor/, by the name the sources import them by. */
export const VENDORED = ["gpt-tokenizer"]

/** Where a vendored package's bundle is, from dist/: every program's bundle lies in dist/ itself. */
export const vendoredFile = (name) => NodePath.join("vendor", `${name}.cjs`)

const SWAGGER_SHIM = `const NodePath = require("node:path")
const entry = require.resolve("@effect/platform/HttpApiSwagger")
module.exports = require(NodePath.join(NodePath.dirname(entry), "internal", "httpApiSwagger.js"))
`

/** `__dirname` is the program's bundle's folder, dist/ (src/boot/codeCache.ts passes it). */
const vendoredShim = (name) => `module.exports = require(require("node:path").join(__dirname, ${JSON.stringify(vendoredFile(name))}))\n`

export const outsideBundle = {
  name: "outside-bundle",
  setup(build) {
    build.onResolve({ filter: SWAGGER_ASSETS }, (args) =>
      args.importer.includes("@effect/platform") ? { path: "swagger-assets", namespace: "outside-bundle" } : undefined)
    build.onResolve({ filter: /^@effect\/platform\/HttpApiSwagger$/, namespace: "outside-bundle" }, (args) => ({ path: args.path, external: true }))
    build.onResolve({ filter: new RegExp(`^(${VENDORED.join("|")})$`) }, (args) =>
      args.namespace === "outside-bundle" ? undefined : { path: args.path, namespace: "outside-bundle" })
    build.onLoad({ filter: /.*/, namespace: "outside-bundle" }, (args) => ({
      contents: args.path === "swagger-assets" ? SWAGGER_SHIM : vendoredShim(args.path),
      loader: "js"
    }))
  }
}
