import * as esbuild from "esbuild"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { pathToFileURL } from "node:url"
import { bundleOptions, launcherSource } from "../../build/bundleOptions.mjs"

/** The checkout these scripts belong to, whichever directory a benchmark runs from. */
const ROOT = NodePath.resolve(import.meta.dirname, "../../..")

/** The floor servers under scripts/bench/floor. */
export type FloorServer = "effectServer" | "apiDefinitionServer" | "apiServedServer" | "nodeServer"

/**
 * A floor server under scripts/bench/floor, bundled into `directory` exactly as the service's
 * programs are and started the same way, by a launcher running it with the code cache of this
 * checkout's build (dist/boot/codeCache.js): the path of its launcher.
 */
export const bundleFloorServer = async (name: FloorServer, directory: string) => {
  const outdir = NodePath.join(directory, `floor-${name}`)
  await esbuild.build({ ...bundleOptions(ROOT), entryPoints: { [name]: NodePath.join(ROOT, "scripts/bench/floor", `${name}.ts`) }, outdir })
  const launcher = NodePath.join(outdir, `${name}.mjs`)
  NodeFs.writeFileSync(launcher, launcherSource(pathToFileURL(NodePath.join(ROOT, "dist/boot/codeCache.js")).href, `./${name}.cjs`))
  return launcher
}
