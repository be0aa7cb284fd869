/**
 * The three crash runs, each over its own LLM stub and temporary data roots: the embedded backend
 * killed over and over; replicas on one PostgreSQL database, one of them killed over and over; and
 * replicas under a PostgreSQL server halted and started again. The caller says how a service
 * process starts (tsx in tests, the compiled build in `npm run crash`).
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { type Cluster, createDatabase } from "../postgres/cluster.js"
import { startProviderStub } from "../stubs/llm-providers.js"
import { type CrashLoopOptions, type CrashLoopReport, type KillableService, runCrashLoop } from "./crashLoop.js"
import { postgresStores, sqliteStores } from "./crashStores.js"

export interface CrashRunSettings {
  readonly cycles: number
  readonly clients: number
  readonly users: number
  readonly uptimeMs: readonly [number, number]
  readonly seed: number
  readonly apiKey: string
  /**
   * Starts a service process over a data root with these settings added to its environment; with
   * a log file, everything the process writes is kept there.
   */
  readonly launch: (dataRoot: string, env: Record<string, string>, logFile?: string) => Promise<KillableService>
  /** A directory that keeps each process start's output, one file each (`service-1-start-3.log`). */
  readonly logDir?: string
  readonly progress?: (line: string) => void
}

/** A lease short enough that a killed replica's jobs are resumed by another within seconds. */
const REPLICA_ENV = { SERVICE_JOB_LEASE_SECONDS: "2" }

const withRun = async (
  settings: CrashRunSettings,
  services: number,
  body: (start: (env: Record<string, string>) => CrashLoopOptions["start"], roots: ReadonlyArray<string>) => Promise<CrashLoopReport>
) => {
  const stub = await startProviderStub({ provider: "openai" })
  const llm = { SERVICE_LLM_PROVIDER: "openai", SERVICE_LLM_API_KEY: "stub-key", SERVICE_LLM_BASE_URL: stub.url }
  const roots = Array.from({ length: services }, () => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "memory-crash-")))
  const starts = roots.map(() => 0)
  const launch = (env: Record<string, string>) => async (index: number): Promise<KillableService> => {
    const name = `service-${index}-start-${++starts[index]!}.log`
    const logFile = settings.logDir === undefined ? undefined : NodePath.join(settings.logDir, name)
    const service = await settings.launch(roots[index]!, { ...llm, ...env }, logFile)
    return logFile === undefined ? service : { ...service, log: name }
  }
  try {
    return await body(launch, roots)
  } finally {
    await stub.close()
    for (const root of roots) NodeFs.rmSync(root, { recursive: true, force: true })
  }
}

const loopSettings = (settings: CrashRunSettings) => ({
  cycles: settings.cycles,
  clients: settings.clients,
  users: settings.users,
  uptimeMs: settings.uptimeMs,
  seed: settings.seed,
  apiKey: settings.apiKey,
  ...(settings.progress === undefined ? {} : { progress: settings.progress })
})

/** One process on the embedded SQLite backend, SIGKILLed and restarted over its data root. */
export const sqliteCrashRun = (settings: CrashRunSettings) =>
  withRun(settings, 1, (start, [root]) =>
    runCrashLoop({ ...loopSettings(settings), fault: { _tag: "KillService" }, services: 1, start: start({}), stores: sqliteStores(root!) }))

/** Replicas on one new database of the cluster; one of them, at random, SIGKILLed and restarted each cycle. */
export const replicaKillRun = (settings: CrashRunSettings & { readonly clusterUrl: string; readonly replicas: number }) =>
  withRun(settings, settings.replicas, async (start) => {
    const url = await createDatabase(settings.clusterUrl)
    return runCrashLoop({
      ...loopSettings(settings),
      fault: { _tag: "KillService" },
      services: settings.replicas,
      start: start({ ...REPLICA_ENV, SERVICE_DATABASE_URL: url }),
      stores: postgresStores(url)
    })
  })

/** Replicas on one new database of a cluster of their own, halted and started again each cycle. */
export const databaseOutageRun = (settings: CrashRunSettings & { readonly cluster: Cluster; readonly replicas: number; readonly downMs: readonly [number, number] }) =>
  withRun(settings, settings.replicas, async (start) => {
    const url = await createDatabase(settings.cluster.url)
    return runCrashLoop({
      ...loopSettings(settings),
      fault: { _tag: "DatabaseOutage", halt: settings.cluster.halt, resume: settings.cluster.start, downMs: settings.downMs },
      services: settings.replicas,
      start: start({ ...REPLICA_ENV, SERVICE_DATABASE_URL: url }),
      stores: postgresStores(url)
    })
  })
