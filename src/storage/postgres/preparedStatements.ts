import Pg from "pg"

/** Statement texts given a name in this process; a text beyond them runs unnamed. */
const MAX_NAMED_TEXTS = 2_000
/** Named statements one connection prepares; a text beyond them runs unnamed on it. */
export const MAX_PREPARED_PER_CONNECTION = 500

const names = new Map<string, string>()

/** One name per statement text, the same on every connection; none once the table is full. */
const nameOf = (text: string) => {
  const known = names.get(text)
  if (known !== undefined || names.size >= MAX_NAMED_TEXTS) return known
  const name = `memory_service_${names.size}`
  names.set(text, name)
  return name
}

/**
 * Makes a pooled connection run each statement with parameters as a named prepared statement:
 * parsed and planned once per connection, then only bound and executed, where an unnamed one is
 * parsed and planned on every call. The statements are those of this build, a bounded set; a
 * connection prepares at most MAX_PREPARED_PER_CONNECTION of them, so that statements whose text
 * varies (lists of ids of many lengths) cannot grow what the server keeps per connection.
 *
 * A statement without parameters (DDL, LISTEN, BEGIN) runs as before, through the simple protocol.
 */
export const prepareStatementsOn = (client: Pg.PoolClient) => {
  const query = client.query
  const prepared = new Set<string>()
  const named = (text: string) => {
    const name = nameOf(text)
    if (name === undefined || prepared.has(name)) return name
    if (prepared.size >= MAX_PREPARED_PER_CONNECTION) return undefined
    prepared.add(name)
    return name
  }
  // The driver's overloads cannot be restated here: arguments go through as they came.
  Object.defineProperty(client, "query", {
    configurable: true,
    value: (...args: Array<unknown>) => {
      const [text, values, callback] = args
      const name = typeof text === "string" && Array.isArray(values) && values.length > 0 && typeof callback === "function"
        ? named(text)
        : undefined
      return name === undefined
        ? Reflect.apply(query, client, args)
        : Reflect.apply(query, client, [{ name, text, values }, callback])
    }
  })
}
