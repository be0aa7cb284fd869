// An esbuild plugin: what is large and needed only on first use stays out of the programs' bundles,
// which every start reads and compiles (from its code cache, but read whole all the same):
// - the Swagger UI's script and styles (1.9 MB of strings inside @effect/platform, a dependency of
//   the package), read from the installed package when /docs is first asked for;
// - the tokenizer (2.7 MB of tables), bundled on its own beside the programs (`VENDORED`) and
//   required from there with the first context block or extraction; its rank table is written
//   beside that bundle as JSON (`rankTablesAsJson`).
import * as NodeFs from "node:fs"
import { createRequire } from "node:module"
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

/** A rank table of the tokenizer's package, by its module's path: an array of its pieces by rank. */
const RANK_TABLE = /[\\/]bpeRanks[\\/]([a-z0-9_]+)\.js$/

/**
 * Writes each rank table the vendored tokenizer imports as JSON in `directory`, and has the bundle
 * read it from there. As a module, the table is 2 MB of array literals: V8 parses them into a tree
 * first, and the ~20 MiB that takes stays with the process after it is freed. JSON.parse builds the
 * same arrays with no tree.
 */
export const rankTablesAsJson = (directory) => ({
  name: "rank-tables-as-json",
  setup(build) {
    build.onLoad({ filter: RANK_TABLE }, (args) => {
      const file = `${RANK_TABLE.exec(args.path)[1]}.json`
      const table = createRequire(args.path)(args.path).default
      NodeFs.mkdirSync(directory, { recursive: true })
      NodeFs.writeFileSync(NodePath.join(directory, file), JSON.stringify(table))
      return {
        contents: `Object.defineProperty(exports, "__esModule", { value: true })
exports.default = JSON.parse(require("node:fs").readFileSync(require("node:path").join(__dirname, ${JSON.stringify(file)}), "utf8"))
`,
        loader: "js"
      }
    })
  }
})
