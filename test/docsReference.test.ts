import { OpenApi } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { MemoryApi } from "../src/api/Api.js"

const ROOT = NodePath.resolve(import.meta.dirname, "..")
const read = (path: string) => NodeFs.readFileSync(NodePath.join(ROOT, path), "utf8")

const sourceFiles = (dir: string): Array<string> =>
  NodeFs.readdirSync(NodePath.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = NodePath.join(dir, entry.name)
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith(".ts") ? [path] : []
  })

/**
 * The variables the code reads: every `SERVICE_*` or `OTEL_*` name in src/ written as a string of
 * its own (what the configuration readers are given) or read from `process.env`.
 */
const variablesRead = () => {
  const names = new Set<string>()
  for (const file of sourceFiles("src")) {
    const text = read(file)
    for (const match of text.matchAll(/"((?:SERVICE|OTEL)_[A-Z0-9_]+)"|env\.((?:SERVICE|OTEL)_[A-Z0-9_]+)/g)) {
      names.add((match[1] ?? match[2])!)
    }
  }
  return [...names].sort()
}

/** The variables docs/configuration.md describes: the first cell of its tables' rows. */
const variablesDocumented = () =>
  [...read("docs/configuration.md").matchAll(/^\| `((?:SERVICE|OTEL)_[A-Z0-9_]+)` \|/gm)].map((match) => match[1]!).sort()

/** GitHub's anchor for a heading. */
const anchorOf = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, "").replaceAll(" ", "-")

const withoutCode = (markdown: string) => markdown.replace(/```[\s\S]*?```/g, "")

const markdownFiles = () => ["README.md", ...NodeFs.readdirSync(NodePath.join(ROOT, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)]

describe("the reference documentation matches the code", () => {
  it("every variable the code reads is in docs/configuration.md, and every variable there is read", () => {
    const read = variablesRead()
    const documented = variablesDocumented()
    expect(read.length).toBeGreaterThan(30)
    expect(documented.filter((name, i) => documented.indexOf(name) !== i)).toEqual([])
    expect({ undocumented: read.filter((name) => !documented.includes(name)), unread: documented.filter((name) => !read.includes(name)) })
      .toEqual({ undocumented: [], unread: [] })
  })

  it("every operation of the OpenAPI document has a heading in docs/api.md", () => {
    const headings = read("docs/api.md").split("\n").filter((line) => /^#{2,4} /.test(line))
    const operations = Object.entries(OpenApi.fromApi(MemoryApi).paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`)
    )
    expect(operations.length).toBeGreaterThan(25)
    // "`GET /v1/memories`" or "`DELETE /v1/memories?user_id=`", never a longer path.
    const missing = operations.filter((operation) => !headings.some((line) => line.includes(`\`${operation}\``) || line.includes(`\`${operation}?`)))
    expect(missing).toEqual([])
  })

  it("every relative link of the README and docs/ leads to a file, and to a heading there when it names one", () => {
    const anchors = new Map(markdownFiles().map((file) => [
      file,
      new Set([...withoutCode(read(file)).matchAll(/^#+ (.*)$/gm)].map((match) => anchorOf(match[1]!)))
    ]))
    const broken = markdownFiles().flatMap((file) =>
      [...withoutCode(read(file)).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!)
        .filter((link) => !/^(https?:|mailto:|<)/.test(link))
        .filter((link) => {
          const [path, anchor] = link.split("#") as [string, string | undefined]
          const target = path === "" ? file : NodePath.normalize(NodePath.join(NodePath.dirname(file), path))
          if (!NodeFs.existsSync(NodePath.join(ROOT, target))) return true
          return anchor !== undefined && target.endsWith(".md") && !anchors.get(target)?.has(anchor)
        })
        .map((link) => `${file}: ${link}`)
    )
    expect(broken).toEqual([])
  })
})
