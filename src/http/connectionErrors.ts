import type { ServerResponse } from "node:http"
import { STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"
import { type ApiError, BadRequest, ERROR_CATALOGUE, errorEnvelope, HeadersTooLarge, RequestTimeout } from "../api/errors.js"

/** What a request that never became one gets: too slow, headers too large, or not HTTP at all. */
const connectionError = (code: string | undefined): ApiError => {
  switch (code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new RequestTimeout({ message: "the request was not received in time (SERVICE_REQUEST_TIMEOUT_MS)", details: {} })
    case "HPE_HEADER_OVERFLOW":
      return new HeadersTooLarge({ message: "the request line and headers are too large", details: {} })
    default:
      return new BadRequest({ message: "the request could not be parsed as HTTP", details: {} })
  }
}

const rawResponse = (error: ApiError) => {
  const body = JSON.stringify(errorEnvelope(error))
  const status = ERROR_CATALOGUE[error._tag].status
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
}

/**
 * Answers the errors Node raises below HTTP (a request too slow, headers too large, bytes that
 * are not HTTP) in the error envelope instead of Node's bare status line, then closes the
 * connection. As Node does, nothing is written once a response on it has begun, nor to a peer
 * that has already gone. `track` is called with every response, so that one in flight is known.
 */
export const connectionErrorAnswers = () => {
  const inFlight = new WeakMap<Duplex, ServerResponse>()
  return {
    track: (socket: Duplex, response: ServerResponse) => {
      inFlight.set(socket, response)
      response.on("finish", () => inFlight.delete(socket))
    },
    answer: (error: NodeJS.ErrnoException, socket: Duplex) => {
      const response = inFlight.get(socket)
      if (error.code !== "ECONNRESET" && socket.writable && (response === undefined || !response.headersSent)) {
        socket.write(rawResponse(connectionError(error.code)))
      }
      socket.destroy()
    }
  }
}
