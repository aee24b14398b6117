/**
 * Where Connect, gRPC and gRPC-Web calls arrive: every RPC path is
 * `/<package>.<Service>/<Method>`, in Attic's package or gRPC reflection's.
 * Requests elsewhere never reach the RPC stack, so server.ts loads it on the
 * first request that does (test/rpc/paths.test.ts checks every registered path).
 */
const RPC_PREFIXES = ["/attic.v1.", "/grpc.reflection."] as const;

/** Whether a request target (path and query) may name an RPC method. */
export function isRpcPath(url: string | undefined): boolean {
  return url !== undefined && RPC_PREFIXES.some((p) => url.startsWith(p));
}
