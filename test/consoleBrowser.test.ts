import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import type { Browser, Locator, Page } from "playwright-core"
import { DESKTOP, launchChromium, NARROW, openPage, screenshot } from "./support/browser.js"
import { llmEnv, providerStub } from "./support/llm.js"
import { runToExit } from "./support/processes.js"
import { API_KEY, authHeaders, rawFetch, sendJson, startServer } from "./support/server.js"
import { seedFacts } from "./support/userRows.js"

/** One server (with a stub LLM, so ingests extract memories) and one Chromium for every test. */
class Harness extends Context.Tag("test/ConsoleHarness")<Harness, {
  readonly baseUrl: string
  readonly dataRoot: string
  readonly databaseUrl: string | null
  readonly browser: Browser
  readonly llm: Record<string, string>
}>() {}

const HarnessLive = Layer.scoped(
  Harness,
  Effect.gen(function*() {
    const stub = yield* providerStub("openai")
    const server = yield* startServer(llmEnv(stub))
    const browser = yield* launchChromium
    return { ...server, browser, llm: llmEnv(stub) }
  })
)

const BROWSER_TEST_TIMEOUT = 90_000

const visit = (page: Page, baseUrl: string, path: string) => page.goto(`${baseUrl}/console${path}`)

const enterKey = async (page: Page, key: string = API_KEY) => {
  await page.getByLabel("API key", { exact: true }).fill(key)
  await page.getByRole("button", { name: "Use key", exact: true }).click()
  await page.getByText("API key set").waitFor()
}

/** A titled section of a page: sections are regions named by their heading. */
const panel = (page: Page, title: string) => page.getByRole("region", { name: title, exact: true })

/** The value beside a label in a panel's facts. */
const fact = (scope: Locator, label: string) => scope.locator(".fact").filter({ has: scope.page().getByText(label, { exact: true }) }).locator("dd")

const text = async (locator: Locator) => (await locator.textContent()) ?? ""

/** Stores a conversation synchronously for a user; with infer the stub LLM extracts its memories. */
const ingest = (baseUrl: string, userId: string, content: string, infer: boolean) =>
  Effect.gen(function*() {
    const response = yield* sendJson(`${baseUrl}/v1/memories`, { user_id: userId, infer, async_mode: false, messages: [{ content }] })
    expect(response.status).toBe(200)
    return response.body as { facts_extracted: number; turns_written: number }
  })

const memoriesOf = (baseUrl: string, userId: string) =>
  Effect.map(
    rawFetch(`${baseUrl}/v1/memories?user_id=${userId}`, { headers: authHeaders() }),
    (response) => (response.body as { memories: Array<{ id: string; content: string }> }).memories
  )

/** Chromium follows links inside the app: the page must not have thrown on the way. */
const noPageErrors = (pageErrors: ReadonlyArray<string>) => Effect.sync(() => expect(pageErrors).toEqual([]))

layer(HarnessLive, { timeout: "60 seconds", excludeTestServices: true })("the console in Chromium", (it) => {
  it.scoped("overview: health without a key, then configuration and stats with it; a refused second server is flagged", () =>
    Effect.gen(function*() {
      const { baseUrl, browser, dataRoot } = yield* Harness
      // A second server on the same data root is refused, and the first one counts it.
      const second = yield* Effect.promise(() => runToExit({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: dataRoot }))
      expect(second.code).not.toBe(0)
      const { page, pageErrors } = yield* openPage(browser)
      const authorizations: Array<readonly [string, string | undefined]> = []
      page.on("request", (request) => {
        const path = new URL(request.url()).pathname
        if (!path.startsWith("/console")) authorizations.push([path, request.headers().authorization])
      })
      yield* Effect.promise(async () => {
        await visit(page, baseUrl, "/")
        await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()
        await fact(panel(page, "Health"), "Status").getByText("ok").waitFor()
        // Without a key the admin views are refused: the code and the message are shown.
        const refusal = panel(page, "Configuration").getByRole("alert")
        await refusal.waitFor()
        expect(await text(refusal)).toMatch(/^unauthorized .+\(HTTP 401\)$/)

        await enterKey(page)
        const config = panel(page, "Configuration")
        await fact(config, "Service API key").getByText("set", { exact: true }).waitFor()
        expect(await text(fact(config, "LLM API key"))).toBe("set")
        expect(await text(fact(config, "Purge allowed"))).toBe("no")
        expect(await text(fact(config, "Lock contention"))).toBe("1")
        const warning = page.getByRole("alert").filter({ hasText: "Lock contention" })
        expect(await text(warning)).toContain("refused this data root 1 time")
        await fact(panel(page, "Stats"), "Users").waitFor()
        await screenshot(page, "overview")

        // The key went as a Bearer token once entered, and lives in session storage only.
        expect(authorizations.find(([path]) => path === "/health")?.[1]).toBeUndefined()
        expect(authorizations.filter(([path]) => path === "/v1/admin/config").map(([, auth]) => auth)).toEqual([undefined, `Bearer ${API_KEY}`])
        expect(await page.evaluate("sessionStorage.getItem('memory-console.api-key')")).toBe(API_KEY)
        expect(await page.evaluate("localStorage.length")).toBe(0)
        expect(await page.context().cookies()).toEqual([])
        await page.getByRole("button", { name: "Forget key" }).click()
        expect(await page.evaluate("sessionStorage.getItem('memory-console.api-key')")).toBeNull()
      })
      yield* noPageErrors(pageErrors)
    }), BROWSER_TEST_TIMEOUT)

  it.scoped("memories: list a user's memory, open it with its versions, provenance and events, archive it", () =>
    Effect.gen(function*() {
      const { baseUrl, browser } = yield* Harness
      expect((yield* ingest(baseUrl, "ada", "I moved to Lisbon in March 2024.", true)).facts_extracted).toBe(1)
      const [first] = yield* memoriesOf(baseUrl, "ada")
      const corrected = yield* sendJson(`${baseUrl}/v1/memories/${first!.id}`, { user_id: "ada", content: "I moved to Porto in May 2025." }, "PATCH")
      expect(corrected.status).toBe(200)
      const current = (corrected.body as { memory: { id: string; content: string } }).memory
      // Turns stored verbatim (infer false) are searchable but make no memory to list.
      expect((yield* ingest(baseUrl, "bob", "Bob keeps bees on the roof.", false)).turns_written).toBe(1)

      const { page, pageErrors } = yield* openPage(browser)
      yield* Effect.promise(async () => {
        await visit(page, baseUrl, "/memories")
        await enterKey(page)
        await page.getByLabel("User id").fill("ada")
        await page.getByRole("button", { name: "Show memories" }).click()
        const listed = page.getByRole("link", { name: current.content })
        await listed.waitFor()
        expect(await text(page.locator(".pager-position"))).toBe("1–1 of 1")
        expect(new URL(page.url()).search).toBe("?user=ada")
        await screenshot(page, "memories")

        await listed.click()
        await page.getByRole("heading", { name: "Memory", level: 1 }).waitFor()
        expect(new URL(page.url()).pathname).toBe(`/console/memories/${current.id}`)
        expect(await text(panel(page, "Content").locator(".memory-content"))).toBe(current.content)
        const versions = panel(page, "Versions")
        await versions.getByText("This version").waitFor()
        expect(await text(versions)).toContain(first!.content)
        await versions.getByRole("link", { name: "Open version" }).waitFor()
        const provenance = panel(page, "Provenance")
        await provenance.getByText("I moved to Porto in May 2025.").waitFor()
        expect(await text(fact(provenance, "Entities"))).toContain("location: Porto")
        const events = panel(page, "Events")
        await events.getByText("added", { exact: true }).waitFor()
        await events.getByText("superseded", { exact: true }).waitFor()
        await screenshot(page, "memory")

        // Purge is off on this server: not offered, and the page says why.
        await page.getByText("Purge is off on this server").waitFor()
        expect(await page.getByRole("button", { name: "Purge", exact: true }).count()).toBe(0)
        await page.getByRole("button", { name: "Archive", exact: true }).click()
        await page.getByRole("button", { name: "Confirm archive" }).click()
        await page.getByText("Archived: it no longer appears").waitFor()
        await events.getByText("deleted", { exact: true }).waitFor()

        await page.getByRole("link", { name: "Back to the memories of ada" }).click()
        await page.getByText("ada has no current memories.").waitFor()
        await page.getByLabel("User id").fill("bob")
        await page.getByRole("button", { name: "Show memories" }).click()
        await page.getByText("bob has no current memories.").waitFor()
      })
      const archived = yield* rawFetch(`${baseUrl}/v1/memories/${current.id}?user_id=ada`, { headers: authHeaders() })
      expect(archived.status).toBe(404)
      yield* noPageErrors(pageErrors)
    }), BROWSER_TEST_TIMEOUT)

  it.scoped("memories: purge is offered where the server allows it", () =>
    Effect.gen(function*() {
      const { browser, llm } = yield* Harness
      const { baseUrl } = yield* startServer({ ...llm, SERVICE_ALLOW_PURGE: "true" })
      yield* ingest(baseUrl, "ada", "I adopted a cat called Miso.", true)
      const [memory] = yield* memoriesOf(baseUrl, "ada")
      const { page, pageErrors } = yield* openPage(browser)
      yield* Effect.promise(async () => {
        await visit(page, baseUrl, `/memories/${encodeURIComponent(memory!.id)}?user=ada`)
        await enterKey(page)
        expect(await text(panel(page, "Content").locator(".memory-content"))).toBe(memory!.content)
        await page.getByRole("button", { name: "Purge", exact: true }).click()
        await page.getByRole("button", { name: "Confirm purge" }).click()
        await page.getByText("Purged: the memory and what hung on it are erased.").waitFor()
      })
      expect(yield* memoriesOf(baseUrl, "ada")).toEqual([])
      yield* noPageErrors(pageErrors)
    }), BROWSER_TEST_TIMEOUT)

  it.scoped("search & context: hits with scores and degraded legs, the context block with citations, latency; errors by code", () =>
    Effect.gen(function*() {
      const { baseUrl, browser } = yield* Harness
      expect((yield* ingest(baseUrl, "cy", "My favourite tea is genmaicha, brewed at 80 degrees.", false)).turns_written).toBe(1)
      const { page, pageErrors } = yield* openPage(browser)
      yield* Effect.promise(async () => {
        await visit(page, baseUrl, "/playground")
        await enterKey(page)
        await panel(page, "Search hits").getByText("Run a query to see its hits.").waitFor()
        await page.getByLabel("User id").fill("cy")
        await page.getByLabel("Query").fill("genmaicha tea")
        await page.getByLabel("Top k").fill("5")
        await page.getByLabel("Token budget").fill("500")
        await page.getByRole("button", { name: "Run", exact: true }).click()

        const hits = panel(page, "Search hits")
        await hits.getByText(/^Latency \d+(\.\d+)? ms/).waitFor()
        const firstHit = hits.locator("tbody tr").first()
        expect(await text(firstHit)).toContain("My favourite tea is genmaicha")
        expect(await text(firstHit.locator("td").nth(2))).toMatch(/^\d+\.\d{4}$/)
        // Degraded legs are listed, or it is said that every leg ran.
        await hits.getByText(/^(Every retrieval leg ran\.|Degraded:)/).waitFor()

        const context = panel(page, "Context")
        await context.getByText(/^Latency \d+(\.\d+)? ms/).waitFor()
        expect(await text(context.getByLabel("Rendered context"))).toContain("genmaicha")
        expect(await text(context.locator(".citations li").first())).toMatch(/^ev_/)
        await context.getByText(/^(Every retrieval leg ran\.|Degraded:)/).waitFor()
        await screenshot(page, "playground")

        // A user id the service refuses: both panels show the error's code and message.
        await page.getByLabel("User id").fill("../etc")
        await page.getByRole("button", { name: "Run", exact: true }).click()
        await hits.getByRole("alert").getByText("invalid_scope").waitFor()
        await context.getByRole("alert").getByText("invalid_scope").waitFor()
      })
      yield* noPageErrors(pageErrors)
    }), BROWSER_TEST_TIMEOUT)

  it.scoped("jobs: follows an asynchronous ingest until it succeeds; an unknown job shows not_found", () =>
    Effect.gen(function*() {
      const { browser } = yield* Harness
      // A slow provider keeps the job running for seconds, so the page has to poll.
      const slow = yield* providerStub("openai", { delayMs: 3000 })
      const { baseUrl } = yield* startServer(llmEnv(slow))
      const { page, pageErrors } = yield* openPage(browser)
      yield* Effect.promise(async () => {
        await visit(page, baseUrl, "/jobs")
        await enterKey(page)
      })
      // Submitted only once the page is ready, so that the page sees the job still running.
      const accepted = yield* sendJson(`${baseUrl}/v1/memories`, { user_id: "dee", messages: [{ content: "I run every Sunday morning." }] })
      expect(accepted.status).toBe(202)
      const jobId = (accepted.body as { job_id: string }).job_id
      yield* Effect.promise(async () => {
        await page.getByLabel("Job id").fill(jobId)
        await page.getByRole("button", { name: "Follow job" }).click()
        await page.getByText(/^Following: checked \d+ times?, every 1 s\.$/).waitFor()
        const finished = page.getByText(/^Finished \(succeeded\) after \d+ checks\.$/)
        await finished.waitFor({ timeout: 30_000 })
        expect(Number(/after (\d+)/.exec(await text(finished))?.[1])).toBeGreaterThan(1)
        expect(await text(fact(panel(page, `Job ${jobId}`), "Kind"))).toBe("ingest")
        expect(await text(page.locator(".job-result"))).toContain("\"facts_extracted\": 1")
        await screenshot(page, "jobs")

        await page.getByLabel("Job id").fill("no-such-job")
        await page.getByRole("button", { name: "Follow job" }).click()
        const missing = page.getByRole("alert")
        await missing.getByText("not_found").waitFor()
        expect(await text(missing)).toContain("job 'no-such-job' not found")
      })
      yield* noPageErrors(pageErrors)
    }), BROWSER_TEST_TIMEOUT)

  it.scoped("ops: mint a key shown once, revoke it, find its request in the log, latency by route, token usage, embeddings", () =>
    Effect.gen(function*() {
      const harness = yield* Harness
      const { baseUrl, browser } = harness
      yield* ingest(baseUrl, "eve", "I am allergic to peanuts.", true)
      // Memories without a vector, as if written before the embedder was configured.
      yield* ingest(baseUrl, "frank", "I keep bees.", false)
      yield* seedFacts(harness, "frank", [{ fact_id: "fact_bees", content: "Frank keeps bees." }, { fact_id: "fact_honey", content: "Frank sells honey." }])
      const { page, pageErrors } = yield* openPage(browser)
      const minted = yield* Effect.promise(async () => {
        await visit(page, baseUrl, "/ops")
        await enterKey(page)
        await page.getByLabel("Key name", { exact: true }).fill("ci-robot")
        await page.getByRole("button", { name: "Mint key" }).click()
        const plaintext = await text(page.locator(".minted-key"))
        expect(plaintext).toMatch(/^sm_[A-Za-z0-9_-]{20,}$/)
        await panel(page, "API keys").getByRole("row").filter({ hasText: "ci-robot" }).getByText("active", { exact: true }).waitFor()
        return plaintext
      })
      const asRobot = yield* rawFetch(`${baseUrl}/v1/admin/config`, { headers: authHeaders(minted) })
      expect(asRobot.status).toBe(200)
      yield* Effect.promise(async () => {
        await page.getByRole("button", { name: "I have copied it" }).click()
        expect(await page.locator(".minted-key").count()).toBe(0)
        const keys = panel(page, "API keys")
        await keys.getByRole("button", { name: "Revoke ci-robot", exact: true }).click()
        await keys.getByRole("button", { name: "Confirm revoke ci-robot" }).click()
        await keys.getByRole("row").filter({ hasText: "ci-robot" }).getByText(/^revoked /).waitFor()
      })
      const revoked = yield* rawFetch(`${baseUrl}/v1/admin/config`, { headers: authHeaders(minted) })
      expect(revoked.status).toBe(401)
      yield* Effect.promise(async () => {
        const log = panel(page, "Request log")
        await log.getByRole("button", { name: "Refresh" }).click()
        await log.getByLabel("Key name contains").fill("ci-robot")
        const robotRow = log.locator("tbody tr").filter({ hasText: "/v1/admin/config" })
        await robotRow.waitFor()
        expect(await text(robotRow)).toContain("200")
        await log.getByLabel("Key name contains").fill("")
        await log.getByLabel("Status").selectOption("4")
        await log.locator("tbody tr").filter({ hasText: "401" }).first().waitFor()
        await log.getByLabel("Status").selectOption("")
        // The console's own files are never logged.
        await log.getByLabel("Route contains").fill("/console")
        await log.getByText("No request on this page matches the filters.").waitFor()
        await log.getByLabel("Route contains").fill("")

        const latency = panel(page, "Latency by route")
        await latency.getByRole("button", { name: "Refresh" }).click()
        await latency.getByRole("row").filter({ hasText: "POST /v1/admin/keys" }).waitFor()
        const usage = panel(page, "Token usage")
        await usage.getByRole("button", { name: "Refresh" }).click()
        await usage.getByRole("rowheader", { name: "ingest" }).waitFor()
        expect(await text(usage)).toMatch(/Models: .*stub/)
        const embeddings = panel(page, "Embeddings")
        await embeddings.getByLabel("User", { exact: true }).fill("frank")
        await embeddings.getByLabel("Batch size").fill("1")
        await embeddings.getByRole("button", { name: "Embed" }).click()
        await embeddings.getByText(/^Done: 2 embedded, 0 left \(/).waitFor()
        await screenshot(page, "ops")
      })
      yield* noPageErrors(pageErrors)
    }), BROWSER_TEST_TIMEOUT)

  it.scoped("keyboard and a narrow window: skip link, key entry and navigation by keys, visible focus, no sideways scrolling", () =>
    Effect.gen(function*() {
      const { baseUrl, browser } = yield* Harness
      const { page, pageErrors } = yield* openPage(browser, NARROW)
      const focused = () => page.evaluate<string>("document.activeElement?.id || document.activeElement?.textContent || ''")
      const tabTo = async (target: string) => {
        for (let i = 0; i < 20 && await focused() !== target; i++) await page.keyboard.press("Tab")
        expect(await focused()).toBe(target)
      }
      const fitsWidth = () => page.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth")
      yield* Effect.promise(async () => {
        await visit(page, baseUrl, "/")
        await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()
        await page.keyboard.press("Tab")
        expect(await focused()).toBe("Skip to content")
        expect(await page.evaluate("getComputedStyle(document.activeElement).outlineStyle")).toBe("solid")

        await tabTo("api-key")
        await page.keyboard.type(API_KEY)
        await page.keyboard.press("Enter")
        await page.getByText("API key set").waitFor()
        await fact(panel(page, "Stats"), "Users").waitFor()
        expect(await fitsWidth()).toBe(true)
        await screenshot(page, "overview-narrow")

        await tabTo("Memories")
        expect(await page.evaluate("getComputedStyle(document.activeElement).outlineStyle")).toBe("solid")
        await page.keyboard.press("Enter")
        await page.getByRole("heading", { name: "Memories", level: 1 }).waitFor()
        expect(new URL(page.url()).pathname).toBe("/console/memories")
        // Focus follows to the new page, as a page load would move it.
        expect(await focused()).toBe("main")
        await page.getByLabel("User id").fill("ada")
        await page.getByLabel("User id").press("Enter")
        await page.getByText(/memories of ada|ada has no current memories/i).first().waitFor()
        expect(await fitsWidth()).toBe(true)
        await screenshot(page, "memories-narrow")

        for (const [path, heading] of [["/playground", "Search & context"], ["/jobs", "Jobs"], ["/ops", "Ops"]] as const) {
          await visit(page, baseUrl, path)
          await page.getByRole("heading", { name: heading, level: 1 }).waitFor()
          await page.waitForFunction("document.querySelectorAll('.loading').length === 0")
          expect(await fitsWidth(), path).toBe(true)
          await screenshot(page, `${path.slice(1)}-narrow`)
        }
      })
      yield* noPageErrors(pageErrors)
    }), BROWSER_TEST_TIMEOUT)

  it.scoped("a page that does not exist says so, and every page keeps a desktop-width layout", () =>
    Effect.gen(function*() {
      const { baseUrl, browser } = yield* Harness
      const { page, pageErrors } = yield* openPage(browser, DESKTOP)
      yield* Effect.promise(async () => {
        await visit(page, baseUrl, "/no/such/page")
        await page.getByRole("heading", { name: "No such page", level: 1 }).waitFor()
        await page.getByRole("link", { name: "Go to the overview" }).click()
        await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()
        expect(await page.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth")).toBe(true)
      })
      yield* noPageErrors(pageErrors)
    }), BROWSER_TEST_TIMEOUT)
})
