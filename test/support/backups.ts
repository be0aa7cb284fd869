import { Effect } from "effect"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { type CliRun, runCli } from "./cli.js"
import { API_KEY } from "./server.js"

/** The CLI as a real process, given time for a busy machine. */
export const cli = (args: ReadonlyArray<string>, options: { readonly within?: ReadonlyArray<string> } = {}): Promise<CliRun> =>
  Effect.runPromise(runCli(args, { timeoutMs: 120_000, ...options }))

/** A session of verbatim turns for a user through the API; each turn carries the session's marker word. */
export const ingestSession = async (port: number, userId: string, session: number, turns = 3) => {
  const response = await fetch(`http://127.0.0.1:${port}/v1/memories`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({
      user_id: userId,
      session_id: `s${session}`,
      infer: false,
      async_mode: false,
      messages: Array.from({ length: turns }, (_, turn) => ({ content: `Entry ${turn} of kiwi${session} about the garden and the beagle.` }))
    })
  })
  if (response.status !== 200) throw new Error(`ingest answered ${response.status}: ${await response.text()}`)
}

/** What a search for a session's marker word finds: the hits' ids and contents, in id order. */
export const searchMarker = async (port: number, userId: string, session: number) => {
  const response = await fetch(`http://127.0.0.1:${port}/v1/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ user_id: userId, query: `kiwi${session}`, top_k: 20 })
  })
  const body = await response.json() as { readonly hits: ReadonlyArray<{ readonly id: string; readonly content: string }> }
  return body.hits.map(({ content, id }) => ({ id, content })).sort((a, b) => a.id.localeCompare(b.id))
}

export interface ManifestOnDisk {
  readonly control: { readonly rows: Record<string, number> }
  readonly users: ReadonlyArray<{ readonly user_id: string; readonly rows: Record<string, number>; readonly sha256: string }>
}

export const readManifestFile = (backup: string): ManifestOnDisk =>
  JSON.parse(NodeFs.readFileSync(NodePath.join(backup, "manifest.json"), "utf8")) as ManifestOnDisk

/** Every file under a directory with its SHA-256, by relative path. */
export const filesUnder = (root: string): Record<string, string> =>
  Object.fromEntries(
    NodeFs.readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const path = NodePath.join(entry.parentPath, entry.name)
        return [NodePath.relative(root, path), NodeCrypto.createHash("sha256").update(NodeFs.readFileSync(path)).digest("hex")]
      })
  )
