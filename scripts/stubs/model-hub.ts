import * as NodeCrypto from "node:crypto"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A model hub on 127.0.0.1 speaking the Hugging Face wire format `models pull` reads: the
 * repository listing (`/api/models/{id}/revision/main?blobs=true`, SHA-256 for large files, git
 * blob ids for the others) and the files (`/{id}/resolve/main/{path}`, byte ranges honoured).
 */
export interface HubFile {
  readonly path: string
  readonly bytes: Uint8Array
  /** Listed as a large (LFS) file, checked by SHA-256. */
  readonly large: boolean
}

export interface HubFaults {
  /** The first download of these paths stops after this many bytes (the connection is dropped). */
  readonly cutAfter?: Record<string, number>
  /** These paths are served with one byte changed, against the listing's checksum. */
  readonly corrupt?: ReadonlyArray<string>
}

export interface ModelHub {
  readonly url: string
  /** Every file request: its path and its Range header. */
  readonly requests: Array<{ readonly path: string; readonly range: string | undefined }>
  readonly close: () => Promise<void>
}

const gitBlobId = (bytes: Uint8Array) => NodeCrypto.createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex")
const sha256 = (bytes: Uint8Array) => NodeCrypto.createHash("sha256").update(bytes).digest("hex")

export const startModelHub = (id: string, files: ReadonlyArray<HubFile>, faults: HubFaults = {}): Promise<ModelHub> => {
  const requests: ModelHub["requests"] = []
  const cut = new Map(Object.entries(faults.cutAfter ?? {}))
  const listing = {
    id,
    siblings: files.map((file) =>
      file.large
        ? { rfilename: file.path, size: file.bytes.length, lfs: { sha256: sha256(file.bytes), size: file.bytes.length } }
        : { rfilename: file.path, size: file.bytes.length, blobId: gitBlobId(file.bytes) }
    )
  }
  const server = NodeHttp.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://hub")
    if (url.pathname === `/api/models/${id}/revision/main`) {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(listing))
      return
    }
    const prefix = `/${id}/resolve/main/`
    const file = url.pathname.startsWith(prefix) ? files.find((f) => f.path === url.pathname.slice(prefix.length)) : undefined
    if (file === undefined) {
      response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "Entry not found" }))
      return
    }
    const range = request.headers.range
    requests.push({ path: file.path, range })
    let bytes = Buffer.from(file.bytes)
    if (faults.corrupt?.includes(file.path)) {
      bytes = Buffer.from(bytes)
      bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 0xff
    }
    const start = range === undefined ? 0 : Number(/^bytes=(\d+)-$/.exec(range)?.[1] ?? 0)
    if (start >= bytes.length) {
      response.writeHead(416, { "content-range": `bytes */${bytes.length}` }).end()
      return
    }
    const body = bytes.subarray(start)
    response.writeHead(start > 0 ? 206 : 200, {
      "content-type": "application/octet-stream",
      "content-length": String(body.length),
      ...(start > 0 ? { "content-range": `bytes ${start}-${bytes.length - 1}/${bytes.length}` } : {})
    })
    const stopAt = cut.get(file.path)
    if (stopAt !== undefined) {
      cut.delete(file.path)
      // Part of the body, then the connection drops, as a network failure would leave it.
      response.write(body.subarray(0, stopAt), () => setTimeout(() => request.socket.destroy(), 50))
      return
    }
    response.end(body)
  })
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () => new Promise((done) => {
          server.closeAllConnections()
          server.close(() => done())
        })
      })
    })
  })
}
