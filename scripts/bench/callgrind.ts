/**
 * Reading a callgrind profile (valgrind's `--tool=callgrind` output): the instructions each function
 * executed itself, and those grouped by what they are part of in a Node process.
 */
import * as NodeFs from "node:fs"

/** Instructions executed in each function's own code, by its name. */
export const selfInstructions = (file: string): Map<string, number> => {
  const names = new Map<string, string>()
  const costs = new Map<string, number>()
  let current = ""
  // The line after `calls=` is the cost of that call, inclusive: it belongs to the callee.
  let costOfCall = false
  const named = (field: string) => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(field)
    if (match === null) return field
    if (match[2] !== undefined) names.set(match[1]!, match[2])
    return names.get(match[1]!) ?? field
  }
  for (const line of NodeFs.readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("fn=")) {
      current = named(line.slice(3))
      costOfCall = false
    } else if (line.startsWith("cfn=")) {
      named(line.slice(4))
    } else if (line.startsWith("calls=")) {
      costOfCall = true
    } else if (/^[0-9+\-*]/.test(line)) {
      const cost = Number(line.split(" ")[1] ?? 0)
      if (costOfCall) costOfCall = false
      else costs.set(current, (costs.get(current) ?? 0) + cost)
    }
  }
  return costs
}

/** What a function is part of, by its name: V8's own symbols, SQLite's, the C library's. */
export const PARTS = [
  ["JIT-compiled JavaScript", (name: string) => name.startsWith("0x")],
  ["V8's optimizing compiler", (name: string) => /compiler::|Pipeline|Turbofan/.test(name)],
  ["regular expressions", (name: string) => /RegExp|CharacterRange|regexp/.test(name)],
  ["garbage collection", (name: string) => /Scavenger|Sweeper|MarkCompact|Marking|Evacuat|heap::|Heap::|MemoryAllocator/.test(name)],
  ["SQLite", (name: string) => /^(sqlite3|fts5|pcache|porter|unicode)/.test(name)],
  ["V8's builtins (interpreter, inline caches, Map, Array…)", (name: string) => name.startsWith("Builtins_")],
  ["JSON", (name: string) => /Json/.test(name)],
  ["V8's runtime, other", (name: string) => name.startsWith("v8::")],
  ["the C library", (name: string) => /^(_int_|__mem|__str|malloc|free|cfree|mem|str)/.test(name)]
] as const satisfies ReadonlyArray<readonly [string, (name: string) => boolean]>

/** Instructions by part, the rest as "other". */
export const instructionsByPart = (costs: ReadonlyMap<string, number>) => {
  const parts = new Map<string, number>([...PARTS.map(([part]) => [part, 0] as const), ["other", 0]])
  for (const [name, cost] of costs) {
    const part = PARTS.find(([, holds]) => holds(name))?.[0] ?? "other"
    parts.set(part, parts.get(part)! + cost)
  }
  return parts
}
