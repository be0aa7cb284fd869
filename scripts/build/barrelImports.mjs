// An esbuild plugin: `import { Effect, Layer } from "effect"` in the sources becomes one import
// per module (`effect/Effect`, `effect/Layer`). Through the index, a bundle holds every module of
// the package, evaluated as it starts (the server's would be 3.8 MB instead of 2.3); per module, it
// holds and evaluates what it uses.
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

const BARREL = /import\s+(type\s+)?\{([^}]*)\}\s+from\s+"(effect|@effect\/[a-z-]+)";?/g

/** For one package's index: the module each exported name comes from, as `import` spells it. */
const indexExports = (root, pkg) => {
  const index = NodePath.join(root, "node_modules", pkg, "dist/esm/index.js")
  const text = NodeFs.readFileSync(index, "utf8").replace(/\/\*[\s\S]*?\*\//g, "")
  const names = new Map()
  for (const [, name, file] of text.matchAll(/export \* as (\w+) from "\.\/(\w+)\.js"/g)) {
    names.set(name, { module: `${pkg}/${file}`, namespace: true })
  }
  for (const [, list, file] of text.matchAll(/export\s*\{([^}]*)\}\s*from\s*"\.\/(\w+)\.js"/g)) {
    for (const name of list.split(",").map((entry) => entry.trim()).filter(Boolean)) {
      names.set(name, { module: `${pkg}/${file}`, namespace: false })
    }
  }
  return names
}

/** One specifier (`Effect`, `type Layer`, `HttpApp as App`) as its own import line. */
const rewriteSpecifier = (exports, pkg, allTypes) => (specifier) => {
  const typeOnly = allTypes || specifier.startsWith("type ")
  const [name, alias] = specifier.replace(/^type\s+/, "").split(/\s+as\s+/)
  const source = exports.get(name)
  if (source === undefined) throw new Error(`${pkg} has no export named ${name}`)
  const keyword = typeOnly ? "import type" : "import"
  return source.namespace
    ? `${keyword} * as ${alias ?? name} from "${source.module}";`
    : `${keyword} { ${name}${alias === undefined ? "" : ` as ${alias}`} } from "${source.module}";`
}

export const barrelImports = (root) => ({
  name: "barrel-imports",
  setup(build) {
    const packages = new Map()
    const exportsOf = (pkg) => {
      if (!packages.has(pkg)) packages.set(pkg, indexExports(root, pkg))
      return packages.get(pkg)
    }
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${NodePath.sep}node_modules${NodePath.sep}`)) return undefined
      const text = NodeFs.readFileSync(args.path, "utf8")
      // Line breaks kept, so that positions in messages still match the source.
      const contents = text.replace(BARREL, (whole, allTypes, list, pkg) => {
        const specifiers = list.split(",").map((entry) => entry.trim()).filter(Boolean)
        const lines = whole.split("\n").length - 1
        return specifiers.map(rewriteSpecifier(exportsOf(pkg), pkg, allTypes !== undefined)).join(" ") + "\n".repeat(lines)
      })
      return { contents, loader: "ts" }
    })
  }
})
