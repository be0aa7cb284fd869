import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { NotFound } from "../api/errors.js"
import { errorResponse } from "./errorResponse.js"

export const CONSOLE_PATH = "/console"

/**
 * The package's root: the nearest folder above this module holding a package.json. The module
 * sits at different depths in the sources (`src/http/`) and in the bundle (`dist/`, or a chunk
 * under it), and the package may be installed anywhere.
 */
const packageRoot = (from: string): string => {
  const parent = NodePath.dirname(from)
  if (NodeFs.existsSync(NodePath.join(parent, "package.json")) || parent === from) return parent
  return packageRoot(parent)
}

/**
 * Where the built console lives: `console/dist` at the package root, found from this module's
 * own place rather than the working directory, so the server finds it wherever it is started from.
 */
export class ConsoleDirectory extends Context.Reference<ConsoleDirectory>()("Memory/ConsoleDirectory", {
  defaultValue: () => NodePath.join(packageRoot(fileURLToPath(import.meta.url)), "console", "dist")
}) {}

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8"
}

interface StaticFile {
  readonly body: Uint8Array
  readonly contentType: string
  readonly cacheControl: string
}

/**
 * Every regular file of the build, read once at start: the console is small, and a request can
 * then only ever reach a file that is in this map (symbolic links are not followed).
 */
const readBuild = (root: string): ReadonlyMap<string, StaticFile> => {
  const files = new Map<string, StaticFile>()
  for (const entry of NodeFs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const absolute = NodePath.join(entry.parentPath, entry.name)
    const relative = NodePath.relative(root, absolute).split(NodePath.sep).join("/")
    files.set(relative, {
      body: NodeFs.readFileSync(absolute),
      contentType: CONTENT_TYPES[NodePath.extname(entry.name).toLowerCase()] ?? "application/octet-stream",
      // Vite names assets by their content hash, so they never change; index.html must be revalidated.
      cacheControl: relative.startsWith("assets/") ? "public, max-age=31536000, immutable" : "no-cache"
    })
  }
  return files
}

const notFound = errorResponse(new NotFound({ message: "Not Found", details: {} }))

/**
 * The file a request path names, relative to the build. The raw request target is used, since
 * URL parsing would already have resolved `..`; a path that still names a parent or current
 * directory once decoded (`..`, `%2e%2e`) or carries a backslash or NUL is refused outright
 * instead of falling back to the app.
 */
export const consoleFilePath = (target: string): string | undefined => {
  const rawPath = target.split("?")[0] ?? ""
  let decoded: string
  try {
    decoded = decodeURIComponent(rawPath.slice(CONSOLE_PATH.length))
  } catch {
    return undefined
  }
  if (/[\\\0]/.test(decoded)) return undefined
  const segments = decoded.split("/").filter((segment) => segment !== "")
  if (segments.some((segment) => segment === "." || segment === "..")) return undefined
  return segments.join("/")
}

const respond = (file: StaticFile) =>
  HttpServerResponse.uint8Array(file.body, {
    contentType: file.contentType,
    headers: { "cache-control": file.cacheControl, "x-content-type-options": "nosniff" }
  })

const serveBuild = (files: ReadonlyMap<string, StaticFile>, index: StaticFile) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const path = consoleFilePath(request.url)
    if (path === undefined) return notFound
    // Any other path under /console is one of the app's own pages: it routes in the browser.
    return respond(files.get(path) ?? index)
  })

/**
 * The web console at /console, without a key (it sends the key the user enters with each API
 * call). Mounted only when a build is present; otherwise /console is an ordinary 404.
 */
export const ConsoleLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const directory = yield* ConsoleDirectory
    if (!NodeFs.existsSync(NodePath.join(directory, "index.html"))) return Layer.empty
    const files = readBuild(directory)
    const index = files.get("index.html")
    if (index === undefined) return Layer.empty
    const handler = serveBuild(files, index)
    return HttpApiBuilder.Router.use((router) =>
      Effect.all([
        router.get(CONSOLE_PATH, handler),
        router.get(`${CONSOLE_PATH}/*`, handler)
      ], { discard: true }))
  })
)
