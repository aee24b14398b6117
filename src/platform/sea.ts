/**
 * Native addons when running as the single executable (filled by the build's
 * SEA loader); undefined when running from a checkout, where Node's own
 * module resolution finds them.
 */
export interface NativeAddons {
  betterSqlite3?: unknown;
}

let addons: NativeAddons | undefined;

export function setNativeAddons(a: NativeAddons): void {
  addons = a;
}

export function nativeAddons(): NativeAddons | undefined {
  return addons;
}
