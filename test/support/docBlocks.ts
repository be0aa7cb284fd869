/**
 * The shell blocks of a Markdown document that the documentation tests run, and the outputs the
 * document shows for them.
 *
 * Conventions, so that a document stays pasteable by a reader and runnable by the tests:
 * - A fenced `sh` (or `bash`) block is run. An HTML comment on the line before it may say
 *   otherwise: `<!-- doc-test: server -->` marks a block that starts the service, which the tests
 *   start themselves with the `SERVICE_*` variables the block sets (on a fresh data root or
 *   database and a free port); `<!-- doc-test: stub -->` marks a block that starts the LLM provider
 *   stub, which the tests start on a free port; `<!-- doc-test: skip -->` a block that is not run.
 * - A fenced `json` or `text` block right after a run block (blank lines between them only) is what
 *   that block prints. `…` stands for what is left out: a string `"…"` for any value, an object
 *   key `"…"` for further keys, a last array element `"…"` for further elements, a line `…` of
 *   text for any lines.
 * - The service is at http://127.0.0.1:8000 and the stub at http://127.0.0.1:8100, their default
 *   addresses; the tests put their own servers' addresses in their place.
 */

export type BlockRole = "run" | "server" | "stub" | "skip"

export interface ShownOutput {
  readonly language: "json" | "text"
  readonly text: string
}

export interface DocBlock {
  readonly role: BlockRole
  readonly code: string
  /** 1-based line of the block's opening fence, for messages. */
  readonly line: number
  readonly output: ShownOutput | null
}

interface Fence {
  readonly language: string
  readonly code: string
  readonly line: number
  /** The marker comment on the line before the fence, if any. */
  readonly marker: string | null
  /** Whether only blank lines separate this fence from the previous one. */
  readonly followsFence: boolean
}

const MARKER = /^<!--\s*doc-test:\s*(\w+)\s*-->$/

const fences = (markdown: string): Array<Fence> => {
  const lines = markdown.split("\n")
  const found: Array<Fence> = []
  let lastFenceEnd = -2
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!)
    if (open === null) continue
    const start = i
    let end = i + 1
    while (end < lines.length && lines[end] !== "```") end++
    const before = lines.slice(lastFenceEnd + 1, start)
    const previous = start > 0 ? lines[start - 1]!.trim() : ""
    found.push({
      language: open[1]!,
      code: lines.slice(start + 1, end).join("\n"),
      line: start + 1,
      marker: MARKER.exec(previous)?.[1] ?? null,
      followsFence: lastFenceEnd >= 0 && before.every((line) => line.trim() === "")
    })
    lastFenceEnd = end
    i = end
  }
  return found
}

const roleOf = (marker: string | null, line: number): BlockRole => {
  if (marker === null) return "run"
  if (marker === "server" || marker === "stub" || marker === "skip") return marker
  throw new Error(`line ${line}: unknown doc-test marker "${marker}"`)
}

const shownOutput = (fence: Fence): ShownOutput | null =>
  fence.language === "json" || fence.language === "text" ? { language: fence.language, text: fence.code } : null

/** The shell blocks of a document, in order, each with the output shown after it. */
export const docBlocks = (markdown: string): Array<DocBlock> => {
  const all = fences(markdown)
  const blocks: Array<DocBlock> = []
  all.forEach((fence, index) => {
    if (fence.language !== "sh" && fence.language !== "bash") return
    const next = all[index + 1]
    const output = next !== undefined && next.followsFence ? shownOutput(next) : null
    blocks.push({ role: roleOf(fence.marker, fence.line), code: fence.code, line: fence.line, output })
  })
  return blocks
}

/** The part of a document under one level-2 heading, up to the next one. */
export const section = (markdown: string, heading: string): string => {
  const lines = markdown.split("\n")
  const start = lines.findIndex((line) => line === `## ${heading}`)
  if (start < 0) throw new Error(`no section "## ${heading}"`)
  const end = lines.findIndex((line, i) => i > start && line.startsWith("## "))
  return lines.slice(start, end < 0 ? undefined : end).join("\n")
}

/** The `NAME=value` settings a server block gives the service (values without spaces or quotes). */
export const serverSettings = (code: string): Record<string, string> =>
  Object.fromEntries([...code.matchAll(/\b((?:SERVICE|OTEL)_[A-Z0-9_]+)=(\S+)/g)].map((match) => [match[1]!, match[2]!]))
