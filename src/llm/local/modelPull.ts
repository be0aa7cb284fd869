import { Data, Effect, Schema } from "effect"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { hubDirectory } from "./modelFiles.js"

/** Why a pull stopped; what was fully downloaded and verified stays, a partial file stays to resume. */
export class ModelPullFailed extends Data.TaggedError("ModelPullFailed")<{
  readonly code: "hub_unreachable" | "model_not_found" | "download_failed" | "checksum_mismatch"
  readonly message: string
}> {}

/** The hub's listing of a model repository (`/api/models/{id}/revision/main?blobs=true`). */
const Listing = Schema.Struct({
  siblings: Schema.Array(Schema.Struct({
    rfilename: Schema.String,
    blobId: Schema.optional(Schema.String),
    size: Schema.optional(Schema.Number),
    lfs: Schema.optional(Schema.Struct({ sha256: Schema.String, size: Schema.Number }))
  }))
})
type Sibling = (typeof Listing.Type)["siblings"][number]

/** The files taken from a repository, as named here, each from the first of its candidates the repository has. */
const WANTED: ReadonlyArray<{ readonly name: string; readonly candidates: ReadonlyArray<string>; readonly required: boolean }> = [
  { name: "model.onnx", candidates: ["onnx/model.onnx", "model.onnx"], required: true },
  { name: "tokenizer.json", candidates: ["tokenizer.json", "onnx/tokenizer.json"], required: true },
  { name: "config.json", candidates: ["config.json", "onnx/config.json"], required: true },
  { name: "sentence_bert_config.json", candidates: ["sentence_bert_config.json"], required: false }
]

export interface PullProgress {
  readonly file: string
  readonly received: number
  readonly total: number | undefined
  readonly done: boolean
}

export interface PullSettings {
  readonly hubUrl: string
  readonly dataRoot: string
  readonly id: string
  readonly onProgress: (progress: PullProgress) => void
}

const LISTING_TIMEOUT_MS = 30_000
/** A download that receives nothing for this long is cut off (and resumes on the next pull). */
const STALL_TIMEOUT_MS = 60_000

const describe = (error: unknown) => {
  if (!(error instanceof Error)) return String(error)
  const inner: unknown = error.cause
  return inner instanceof Error ? `${error.message} (${inner.message})` : error.message
}

const unreachable = (hubUrl: string, error: unknown) =>
  new ModelPullFailed({
    code: "hub_unreachable",
    message: `cannot reach the model hub at ${hubUrl}: ${describe(error)}. Check the network, or point SERVICE_EMBED_HUB_URL (--hub-url) at a reachable mirror; a model directory copied by hand works too (SERVICE_EMBED_MODEL=/path/to/dir)`
  })

/** What the hub says the file's bytes hash to: SHA-256 for large files, git's blob SHA-1 for the others. */
const expectedDigest = (sibling: Sibling) =>
  sibling.lfs !== undefined
    ? { algorithm: "sha256", hex: sibling.lfs.sha256.toLowerCase(), gitBlob: false }
    : sibling.blobId !== undefined
    ? { algorithm: "sha1", hex: sibling.blobId.toLowerCase(), gitBlob: true }
    : undefined

const fileDigest = (path: string, algorithm: string, gitBlob: boolean) =>
  Effect.async<string, ModelPullFailed>((resume) => {
    const hash = NodeCrypto.createHash(algorithm)
    if (gitBlob) hash.update(`blob ${NodeFs.statSync(path).size}\0`)
    const stream = NodeFs.createReadStream(path)
    stream.on("data", (chunk) => hash.update(chunk))
    stream.on("error", (error) => resume(Effect.fail(new ModelPullFailed({ code: "download_failed", message: `cannot read ${path}: ${error.message}` }))))
    stream.on("end", () => resume(Effect.succeed(hash.digest("hex"))))
  })

/** Appends the file's remaining bytes to `part`, asking for a range when part of it is there already. */
const download = (url: string, part: string, sibling: Sibling, onProgress: (received: number, total: number | undefined) => void) =>
  Effect.tryPromise({
    try: async () => {
      const have = NodeFs.existsSync(part) ? NodeFs.statSync(part).size : 0
      const controller = new AbortController()
      let stall = setTimeout(() => controller.abort(new Error(`no data for ${STALL_TIMEOUT_MS / 1000} s`)), STALL_TIMEOUT_MS)
      try {
        const response = await fetch(url, { headers: have > 0 ? { range: `bytes=${have}-` } : {}, signal: controller.signal })
        if (response.status === 416) return
        if (!response.ok || response.body === null) throw new Error(`the hub answered ${response.status} for ${url}`)
        // A server that ignores the range sends the whole file again.
        const resumed = response.status === 206
        let received = resumed ? have : 0
        const total = sibling.lfs?.size ?? sibling.size
        const out = NodeFs.openSync(part, resumed ? "a" : "w")
        try {
          for await (const chunk of response.body) {
            clearTimeout(stall)
            stall = setTimeout(() => controller.abort(new Error(`no data for ${STALL_TIMEOUT_MS / 1000} s`)), STALL_TIMEOUT_MS)
            NodeFs.writeSync(out, chunk)
            received += chunk.length
            onProgress(received, total)
          }
        } finally {
          NodeFs.closeSync(out)
        }
      } finally {
        clearTimeout(stall)
      }
    },
    catch: (error) =>
      new ModelPullFailed({
        code: "download_failed",
        message: `the download of ${url} stopped: ${describe(error)}; what arrived is kept, run the same command again to resume`
      })
  })

const listing = (hubUrl: string, id: string) =>
  Effect.gen(function*() {
    const url = `${hubUrl}/api/models/${id}/revision/main?blobs=true`
    const response = yield* Effect.tryPromise({
      try: () => fetch(url, { signal: AbortSignal.timeout(LISTING_TIMEOUT_MS) }),
      catch: (error) => unreachable(hubUrl, error)
    })
    if (response.status === 404 || response.status === 401) {
      return yield* new ModelPullFailed({ code: "model_not_found", message: `the hub at ${hubUrl} has no model ${id} (${response.status})` })
    }
    if (!response.ok) return yield* unreachable(hubUrl, new Error(`it answered ${response.status} for ${url}`))
    const body = yield* Effect.tryPromise({ try: () => response.json(), catch: (error) => unreachable(hubUrl, error) })
    return yield* Schema.decodeUnknown(Listing)(body).pipe(
      Effect.mapError(() => new ModelPullFailed({ code: "model_not_found", message: `the hub's listing of ${id} is not one this command reads` }))
    )
  })

/**
 * Downloads a model repository's ONNX export, tokenizer and configuration into
 * `<data_root>/models/<owner>--<name>/`: each file into a `.part` file that a later run resumes,
 * checked against the hub's checksum, then renamed into place. A file already in place is kept.
 */
export const pullModel = (settings: PullSettings) =>
  Effect.gen(function*() {
    const directory = hubDirectory(settings.dataRoot, settings.id)
    const { siblings } = yield* listing(settings.hubUrl, settings.id)
    const files: Array<{ readonly name: string; readonly sibling: Sibling }> = []
    for (const wanted of WANTED) {
      const sibling = wanted.candidates.map((candidate) => siblings.find((s) => s.rfilename === candidate)).find((s) => s !== undefined)
      if (sibling !== undefined) files.push({ name: wanted.name, sibling })
      else if (wanted.required) {
        return yield* new ModelPullFailed({
          code: "model_not_found",
          message: `${settings.id} has no ${wanted.candidates.join(" or ")}: it is not a sentence-transformers model exported to ONNX`
        })
      }
    }
    yield* Effect.sync(() => NodeFs.mkdirSync(directory, { recursive: true }))
    for (const { name, sibling } of files) {
      const target = NodePath.join(directory, name)
      if (NodeFs.existsSync(target)) continue
      const digest = expectedDigest(sibling)
      if (digest === undefined) {
        return yield* new ModelPullFailed({ code: "checksum_mismatch", message: `the hub gives no checksum for ${sibling.rfilename}: it is not downloaded unchecked` })
      }
      const part = `${target}.part`
      const url = `${settings.hubUrl}/${settings.id}/resolve/main/${sibling.rfilename}`
      yield* download(url, part, sibling, (received, total) => settings.onProgress({ file: name, received, total, done: false }))
      const actual = yield* fileDigest(part, digest.algorithm, digest.gitBlob)
      if (actual !== digest.hex) {
        yield* Effect.sync(() => NodeFs.rmSync(part, { force: true }))
        return yield* new ModelPullFailed({
          code: "checksum_mismatch",
          message: `${sibling.rfilename} does not match the hub's checksum (${digest.algorithm} ${digest.hex}, got ${actual}); the file was removed, run the command again`
        })
      }
      yield* Effect.sync(() => NodeFs.renameSync(part, target))
      settings.onProgress({ file: name, received: NodeFs.statSync(target).size, total: NodeFs.statSync(target).size, done: true })
    }
    return { directory, files: files.map((file) => file.name) }
  })
