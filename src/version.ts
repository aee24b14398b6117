import pkg from "../package.json" with { type: "json" };

/** The running version, from package.json (bundled into the executable). */
export const VERSION: string = pkg.version;
