import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * Native addons the single executable can carry, for Linux glibc on the
 * building machine's CPU (x64 or arm64: `TARGET`). To add
 * one: name it, list the `require` specifiers that load its `.node` file
 * (the build swaps them for a shim calling `loadNativeAddon(name)` from
 * src/platform/sea.ts), and the files to embed, relative to node_modules so
 * their layout (and any `$ORIGIN` RPATH) survives extraction.
 *
 * An addon is embedded only when the bundle reaches one of its specifiers
 * (or `always` is set), so sharp's ~20 MB of libvips ship only once some
 * code imports sharp.
 */
export interface NativeAddonSpec {
  name: string;
  /** Exact `require` specifiers of the native module, as the package's JS writes them. */
  intercept: string[];
  /**
   * Packages bundled through their CommonJS entry even when imported: an ESM
   * entry that loads its addon with createRequire(import.meta.url) would
   * escape the bundle (sharp's does).
   */
  cjsPackages?: string[];
  /** Embedded even when no specifier is intercepted (loaded through a hook instead). */
  always?: boolean;
  /** Directories under node_modules and a pattern of the file names to take from each. */
  files: { dir: string; pattern: RegExp }[];
  /** The file to dlopen, relative to node_modules. */
  main: string;
}

/** The single executable targets the CPU it is built on: Linux x64 or arm64 (glibc). */
export const TARGET_ARCHES = ["x64", "arm64"] as const;
export type TargetArch = (typeof TARGET_ARCHES)[number];

export function targetArch(arch: string = process.arch): TargetArch {
  if (process.platform !== "linux" || !(TARGET_ARCHES as readonly string[]).includes(arch)) {
    throw new Error(
      `the single executable is built for Linux ${TARGET_ARCHES.join(" or ")} (glibc); this is ${process.platform}-${arch}`,
    );
  }
  return arch as TargetArch;
}

/** The addons for one CPU; package names follow each project's own arch spelling. */
export function nativeAddons(arch: TargetArch): NativeAddonSpec[] {
  const a = arch;
  return [
    {
      // Loaded by src/server.ts through better-sqlite3's `nativeBinding` option.
      name: "better-sqlite3",
      intercept: [],
      always: true,
      files: [{ dir: "better-sqlite3/prebuilds", pattern: new RegExp(`^linux-${a}\\.node$`) }],
      main: `better-sqlite3/prebuilds/linux-${a}.node`,
    },
    {
      name: "argon2",
      intercept: [`@node-rs/argon2-linux-${a}-gnu`],
      files: [{ dir: `@node-rs/argon2-linux-${a}-gnu`, pattern: /\.node$/ }],
      main: `@node-rs/argon2-linux-${a}-gnu/argon2.linux-${a}-gnu.node`,
    },
    {
      name: "sharp",
      intercept: [`@img/sharp-linux-${a}/sharp.node`],
      cjsPackages: ["sharp"],
      files: [
        { dir: `@img/sharp-linux-${a}/lib`, pattern: /\.node$/ },
        { dir: `@img/sharp-libvips-linux-${a}/lib`, pattern: /\.so(\.\d+)*$/ },
      ],
      main: "", // resolved from the directory listing: the one .node file of sharp-linux-<arch>
    },
  ];
}

export interface ResolvedAddon {
  name: string;
  hash: string;
  main: string;
  /** Paths relative to node_modules. */
  files: string[];
}

/** Lists an addon's files in `nodeModules` and hashes their content; throws when any is missing. */
export function resolveAddon(spec: NativeAddonSpec, nodeModules: string): ResolvedAddon {
  const files: string[] = [];
  for (const { dir, pattern } of spec.files) {
    const abs = join(nodeModules, dir);
    if (!existsSync(abs)) throw new Error(`native addon ${spec.name}: missing ${abs}`);
    for (const name of readdirSync(abs).sort()) {
      if (pattern.test(name) && statSync(join(abs, name)).isFile()) files.push(`${dir}/${name}`);
    }
  }
  const main = spec.main || files.find((f) => f.endsWith(".node"));
  if (!main || !files.includes(main))
    throw new Error(`native addon ${spec.name}: no ${spec.main || ".node"}`);
  const h = createHash("sha256");
  for (const f of files) h.update(f).update(readFileSync(join(nodeModules, f)));
  return { name: spec.name, hash: h.digest("hex").slice(0, 16), main, files };
}
