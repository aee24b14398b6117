import type { Code as ConnectCode } from "@connectrpc/connect";

/**
 * The Connect/gRPC status codes, with the values of Connect's `Code` enum
 * (they are gRPC's, fixed by its specification). errors.ts names them from
 * here: importing the enum from "@connectrpc/connect" evaluates Connect's
 * whole entry and protobuf's runtime at start, which a server that has not
 * answered an RPC yet does not need (the RPC stack loads on first use).
 * test/unit/rpc-code.test.ts compares every value with the enum.
 */
export const Code = {
  Canceled: 1,
  Unknown: 2,
  InvalidArgument: 3,
  DeadlineExceeded: 4,
  NotFound: 5,
  AlreadyExists: 6,
  PermissionDenied: 7,
  ResourceExhausted: 8,
  FailedPrecondition: 9,
  Aborted: 10,
  OutOfRange: 11,
  Unimplemented: 12,
  Internal: 13,
  Unavailable: 14,
  DataLoss: 15,
  Unauthenticated: 16,
} as const satisfies Record<keyof typeof ConnectCode, ConnectCode>;

/** One of those codes, typed as Connect's enum. */
export type Code = ConnectCode;
