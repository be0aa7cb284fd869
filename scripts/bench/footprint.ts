/**
 * The service's memory: resident set (RSS) at rest, after a context block (the tokenizer loaded),
 * and with 64 users' stores open and searched, beside the floor (a bare Node process, and one with
 * only the tokenizer imported, the package's and the build's) measured in the same run. Each
 * figure is the RSS a few seconds after the step, the process idle. With `--baseline DIR` (another
 * checkout, built), the same steps run on its build too, so that before and after come from one run.
 *
 * The plateau under load is bench:load's (its RSS line).
 *
 * Usage: npm run bench:footprint [-- --stores 64 --turns 200 --settle 3 --baseline /path/to/checkout]
 */
import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { conversation, questions } from "./corpus.js"
import { arg, postJson, rssMiB, startService, textArg } from "./support.js"

const STORES = arg("stores", 64)
const TURNS = arg("turns", 200)
const SETTLE_SECONDS = arg("settle", 3)
const BASELINE = textArg("baseline", "")

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000))

/** The RSS of a Node process running `code`, once it has run and settled. */
const bareRss = async (code: string) => {
  const child = spawn(process.execPath, ["--input-type=module", "-e", `${code}; setInterval(() => {}, 1000)`], { stdio: "ignore", cwd: process.cwd() })
  await settle()
  const rss = rssMiB(child.pid!)
  child.kill("SIGKILL")
  return rss
}

interface Figures {
  readonly atRest: number
  readonly tokenizerLoaded: number
  readonly storesOpen: number
}

/** The steps on one build, on a fresh data root of its own. */
const measure = async (entry: string): Promise<Figures> => {
  const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-footprint-"))
  const service = await startService(dataRoot, { SERVICE_STORE_CACHE_MAX: String(Math.max(64, STORES)) }, { entry })
  try {
    await fetch(`http://127.0.0.1:${service.port}/health`)
    await settle()
    const atRest = rssMiB(service.pid)
    await postJson(service.port, "/v1/memories", { user_id: "footprint-0", infer: false, async_mode: false, messages: conversation(0, 2) })
    await postJson(service.port, "/v1/context", { user_id: "footprint-0", query: questions[0] })
    await settle()
    const tokenizerLoaded = rssMiB(service.pid)
    for (let user = 0; user < STORES; user++) {
      await postJson(service.port, "/v1/memories", { user_id: `footprint-${user}`, session_id: "s", infer: false, async_mode: false, messages: conversation(user * TURNS, TURNS) })
      await postJson(service.port, "/v1/search", { user_id: `footprint-${user}`, query: questions[user % questions.length] })
    }
    await settle()
    return { atRest, tokenizerLoaded, storesOpen: rssMiB(service.pid) }
  } finally {
    await service.stop()
    NodeFs.rmSync(dataRoot, { recursive: true, force: true })
  }
}

const builds = [
  ...(BASELINE === "" ? [] : [{ name: "baseline", entry: NodePath.resolve(BASELINE, "dist/main.js") }]),
  { name: BASELINE === "" ? "this" : "this build", entry: "dist/main.js" }
]
const floor = await bareRss("1")
const tokenizerAlone = await bareRss("await import('gpt-tokenizer').then((t) => t.countTokens('warm'))")
// The build's copy of it, which reads its rank table from JSON (scripts/build/outsideBundle.mjs).
const builtTokenizerAlone = await bareRss(`await import(${JSON.stringify(NodePath.resolve("dist/vendor/gpt-tokenizer.cjs"))}).then((t) => t.default.countTokens('warm'))`)
const results = []
for (const build of builds) results.push({ build, figures: await measure(build.entry) })

console.log(`footprint: RSS in MiB, each read ${SETTLE_SECONDS} s after its step; ${STORES} stores of ${TURNS} turns each, searched once; SQLite`)
console.log(`floor: a bare Node process ${floor.toFixed(0)}; one that has only imported the tokenizer and counted with it ${tokenizerAlone.toFixed(0)} (the tokenizer's share ${(tokenizerAlone - floor).toFixed(0)}), the build's copy of it ${builtTokenizerAlone.toFixed(0)} (share ${(builtTokenizerAlone - floor).toFixed(0)})`)
console.log("build        at rest   after a context block (tokenizer loaded)   with stores open")
for (const { build, figures } of results) {
  console.log(`${build.name.padEnd(11)} ${figures.atRest.toFixed(0).padStart(8)}   ${figures.tokenizerLoaded.toFixed(0).padStart(40)}   ${figures.storesOpen.toFixed(0).padStart(16)}`)
}
