/**
 * Instructions per request in the mix, counted by valgrind (`--tool=callgrind`), with where they
 * go: SQLite, V8's compiler, the collector, V8's builtins, the compiled JavaScript. Three runs of
 * one build counted 10.00 to 10.13 million a request where CPU time on a shared machine swings by
 * a fifth, so a change of a few percent shows here when `bench:mixed` cannot see it. The compiler's,
 * the collector's and the regular expressions' parts move the most between runs: under valgrind a
 * request takes some fifty times as long, so what V8 does on a clock (its memory reducer's
 * collections, ageing compiled patterns) weighs more per request than in a server alone. It is not
 * CPU time: it leaves out the kernel (system calls, page faults) and what memory stalls cost, and
 * every thread of the process is counted in one total.
 *
 * Each build runs under valgrind, some 50 times slower than alone: its users seeded, then a warm-up
 * of the mix long enough for V8 to have compiled what the requests run (at 1,000 requests its
 * optimizing compiler still executed a fifth of the instructions), then the counters zeroed, the
 * timed requests sent, and the profile written. Both builds get the same requests and run side by
 * side (valgrind runs a process on one core).
 *
 * Needs valgrind (Debian's package `valgrind`). About 25 minutes with the defaults.
 *
 * Usage: npm run bench:instructions [-- --warmup 8000 --requests 1000 --clients 4 --users 8
 *   --seed-turns 500 --mix 20,60,20 --baseline /path/to/checkout]
 */
import { execFileSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { seededRandom } from "../reliability/random.js"
import { instructionsByPart, selfInstructions } from "./callgrind.js"
import { conversation, questions, seedConversation } from "./corpus.js"
import { arg, listArg, postJson, startService, textArg } from "./support.js"

const WARMUP = arg("warmup", 8_000)
const REQUESTS = arg("requests", 1_000)
const CLIENTS = arg("clients", 4)
const USERS = arg("users", 8)
const SEED_TURNS = arg("seed-turns", 500)
const [INGEST = 20, SEARCH = 60, CONTEXT = 20] = listArg("mix", [20, 60, 20])
const BASELINE = textArg("baseline", "")
const TURNS_PER_INGEST = 10

interface Request {
  readonly path: string
  readonly body: object
}

/**
 * `count` requests of the mix, drawn from `seed`: the same for every build. A warm-up's ingests go
 * to users of their own, as in `bench:mixed`, so that the timed searches run on stores of the
 * seeded turns and the timed ingests only.
 */
const plan = (count: number, seed: number, warmUp: boolean): ReadonlyArray<Request> => {
  const random = seededRandom(seed)
  return Array.from({ length: count }, (_, i) => {
    const roll = random() * (INGEST + SEARCH + CONTEXT)
    if (roll < INGEST) {
      const messages = conversation(SEED_TURNS + i * TURNS_PER_INGEST, TURNS_PER_INGEST)
      const user_id = `${warmUp ? "warm" : "mixed"}-${i % USERS}`
      return { path: "/v1/memories", body: { user_id, session_id: `s-${i}`, infer: false, async_mode: false, messages } }
    }
    return { path: roll < INGEST + SEARCH ? "/v1/search" : "/v1/context", body: { user_id: `mixed-${i % USERS}`, query: questions[i % questions.length]! } }
  })
}

/**
 * Sends the requests from CLIENTS concurrent clients, in order; answers how many were answered.
 * Under valgrind a server is slow enough that a kept-alive connection is now and then closed as a
 * client reuses it: that request is counted as failed, not sent again.
 */
const send = async (port: number, requests: ReadonlyArray<Request>) => {
  let next = 0
  let answered = 0
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (next < requests.length) {
      const request = requests[next++]!
      await postJson(port, request.path, request.body).then(() => answered++, (error: unknown) => {
        console.error(`${request.path}: ${error instanceof Error ? error.message : String(error)}`)
      })
    }
  }))
  // A few resets are the machine's; more, and the server is gone or failing: no figure then.
  if (answered < requests.length * 0.99) throw new Error(`${requests.length - answered} of ${requests.length} requests failed`)
  return answered
}

/** One build's instructions by function over the timed requests. */
const measure = async (name: string, entry: string) => {
  const folder = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), `instructions-${name}-`))
  const profile = NodePath.join(folder, "callgrind.out")
  const runner = ["valgrind", "--tool=callgrind", `--callgrind-out-file=${profile}`, "--smc-check=all-non-file", "--dump-line=no", "--compress-pos=no"]
  const service = await startService(NodePath.join(folder, "data"), {}, { entry, runner, logFile: NodePath.join(folder, "service.log") })
  let answered = 0
  try {
    for (let user = 0; user < USERS; user++) await seedConversation(service.port, `mixed-${user}`, SEED_TURNS)
    await send(service.port, plan(WARMUP, 1, true))
    execFileSync("callgrind_control", ["--zero", String(service.pid)], { stdio: "ignore" })
    answered = await send(service.port, plan(REQUESTS, 2, false))
    execFileSync("callgrind_control", ["--dump", String(service.pid)], { stdio: "ignore" })
  } finally {
    service.kill("SIGKILL")
    await service.exited
  }
  // The dump asked for is the first numbered one; the one at exit, had there been one, would be the file itself.
  const costs = selfInstructions(`${profile}.1`)
  NodeFs.rmSync(folder, { recursive: true, force: true })
  return { costs, answered }
}

const builds = [
  ...(BASELINE === "" ? [] : [{ name: "baseline", entry: NodePath.resolve(BASELINE, "dist/main.js") }]),
  { name: "this build", entry: "dist/main.js" }
]
const results = await Promise.all(builds.map((build) => measure(build.name.replace(" ", "-"), build.entry)))

console.log(`instructions per request (millions), ${REQUESTS} requests of the mix ${INGEST}/${SEARCH}/${CONTEXT} after ${WARMUP}, ${CLIENTS} clients over ${USERS} users of ${SEED_TURNS} seeded turns; SQLite`)
console.log(`requests answered: ${results.map((result, i) => `${builds[i]!.name} ${result.answered}`).join(", ")}`)
const parts = results.map((result) => instructionsByPart(result.costs))
const perRequest = (i: number, instructions: number) => instructions / results[i]!.answered
const totals = parts.map((byPart, i) => perRequest(i, [...byPart.values()].reduce((sum, n) => sum + n, 0)))
const millions = (instructions: number) => (instructions / 1e6).toFixed(2).padStart(12)
console.log(["part".padEnd(58), ...builds.map((build) => build.name.padStart(12))].join(""))
for (const part of parts[0]!.keys()) console.log([part.padEnd(58), ...parts.map((byPart, i) => millions(perRequest(i, byPart.get(part)!)))].join(""))
console.log(["all".padEnd(58), ...totals.map(millions)].join(""))
if (totals.length === 2) console.log(`this build ÷ baseline: ×${(totals[1]! / totals[0]!).toFixed(3)}`)
const last = results.at(-1)!.costs
const total = [...last.values()].reduce((sum, n) => sum + n, 0)
const top = [...last].sort((a, b) => b[1] - a[1]).slice(0, 15)
console.log("this build's functions that executed the most themselves:")
for (const [name, cost] of top) console.log(`  ${(cost / total * 100).toFixed(2).padStart(6)} %  ${name.slice(0, 100)}`)
