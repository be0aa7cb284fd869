import { describe, expect, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { BUILD_INPUTS, BUILD_OUTPUTS, staleReason } from "../scripts/build/stale.mjs"

/** A package root holding every build input, written at `inputsAt` (epoch s), and the outputs at `outputsAt` when given. */
const packageRoot = (inputsAt: number, outputsAt?: number) => {
  const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "memory-build-"))
  const write = (relative: string, at: number) => {
    const path = NodePath.join(root, relative)
    NodeFs.mkdirSync(NodePath.dirname(path), { recursive: true })
    NodeFs.writeFileSync(path, "x")
    NodeFs.utimesSync(path, at, at)
  }
  for (const input of BUILD_INPUTS) write(input.includes(".") ? input : NodePath.join(input, "main.ts"), inputsAt)
  if (outputsAt !== undefined) for (const output of BUILD_OUTPUTS) write(output, outputsAt)
  return { root, write }
}

describe("npm start builds only when the build is stale", () => {
  it("a fresh clone has no build: it is made", () => {
    expect(staleReason(packageRoot(1_000).root)).toBe("dist/main.js is missing")
  })

  it("a build newer than every source is current: nothing is built", () => {
    expect(staleReason(packageRoot(1_000, 2_000).root)).toBeNull()
  })

  it("a source changed since, deep in a folder, or a build output missing makes it stale", () => {
    const { root, write } = packageRoot(1_000, 2_000)
    write("console/src/pages/ops/Panel.tsx", 3_000)
    expect(staleReason(root)).toBe("console/src changed since the last build")
    const again = packageRoot(1_000, 2_000)
    NodeFs.rmSync(NodePath.join(again.root, "console/dist/index.html"))
    expect(staleReason(again.root)).toBe("console/dist/index.html is missing")
  })

  it("the bundles' inputs count: a changed build script or lockfile, or a missing bundle, makes it stale", () => {
    const script = packageRoot(1_000, 2_000)
    script.write("scripts/build/bundle.mjs", 3_000)
    expect(staleReason(script.root)).toBe("scripts/build changed since the last build")
    const lock = packageRoot(1_000, 2_000)
    lock.write("package-lock.json", 3_000)
    expect(staleReason(lock.root)).toBe("package-lock.json changed since the last build")
    const bundle = packageRoot(1_000, 2_000)
    NodeFs.rmSync(NodePath.join(bundle.root, "dist/mcp/main.js"))
    expect(staleReason(bundle.root)).toBe("dist/mcp/main.js is missing")
  })
})
