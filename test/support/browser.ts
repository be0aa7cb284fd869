import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"

/** Debian's Chromium, installed by scripts/setup-test-machine.sh; playwright-core drives it (it downloads no browser). */
export const CHROMIUM = "/usr/bin/chromium"

/** Headless, and quiet on the network: the machine's closed network refuses background traffic. */
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

export const ARTIFACTS = NodePath.resolve(import.meta.dirname, "../../test-artifacts/console")

export const DESKTOP = { width: 1280, height: 900 } as const
export const NARROW = { width: 390, height: 844 } as const

/** Chromium for the enclosing scope; each launch gets a new empty profile. */
export const launchChromium = Effect.acquireRelease(
  Effect.promise(() => {
    if (!NodeFs.existsSync(CHROMIUM)) {
      return Promise.reject(new Error(`${CHROMIUM} is missing: run \`bash scripts/setup-test-machine.sh\` (as root or with sudo; the README's test command runs it first), which installs Debian's chromium`))
    }
    return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  }),
  (browser) => Effect.promise(() => browser.close())
)

export interface OpenPage {
  readonly page: Page
  /** Uncaught exceptions in the page: a working console has none. */
  readonly pageErrors: ReadonlyArray<string>
}

/** A page in a fresh browser context (its own session storage) for the enclosing scope. */
export const openPage = (browser: Browser, viewport: { readonly width: number; readonly height: number } = DESKTOP) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<OpenPage> => {
      const context = await browser.newContext({ viewport })
      const page = await context.newPage()
      // Waits fail after 10 s instead of Playwright's 30, so a broken page fails its test quickly.
      page.setDefaultTimeout(10_000)
      const pageErrors: Array<string> = []
      page.on("pageerror", (error) => pageErrors.push(error.message))
      return { page, pageErrors }
    }),
    ({ page }) => Effect.promise(() => page.context().close())
  )

/** A full-page screenshot kept as a test artifact (test-artifacts/ is git-ignored). */
export const screenshot = async (page: Page, name: string) => {
  NodeFs.mkdirSync(ARTIFACTS, { recursive: true })
  await page.screenshot({ path: NodePath.join(ARTIFACTS, `${name}.png`), fullPage: true })
}
