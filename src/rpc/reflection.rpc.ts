import {
  type DescFile,
  type DescMessage,
  type DescService,
  type MessageInitShape,
  toBinary,
} from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, type ConnectRouter, type ServiceImpl } from "@connectrpc/connect";
import type { UniversalHandlerOptions } from "@connectrpc/connect/protocol";
import * as v1 from "../gen/grpc/reflection/v1/reflection_pb.ts";
import * as v1alpha from "../gen/grpc/reflection/v1alpha/reflection_pb.ts";

type Request = v1.ServerReflectionRequest | v1alpha.ServerReflectionRequest;
type Answer = MessageInitShape<typeof v1.ServerReflectionResponseSchema>["messageResponse"];

/** Every file reachable from `roots` through imports, by name. */
function filesByName(roots: readonly DescFile[]): Map<string, DescFile> {
  const out = new Map<string, DescFile>();
  const visit = (f: DescFile) => {
    if (out.has(f.name)) return;
    out.set(f.name, f);
    for (const d of f.dependencies) visit(d);
  };
  for (const f of roots) visit(f);
  return out;
}

/** Fully-qualified symbol → the file declaring it (services, methods, messages, enums). */
function symbolIndex(files: Iterable<DescFile>): Map<string, DescFile> {
  const out = new Map<string, DescFile>();
  const message = (m: DescMessage, f: DescFile) => {
    out.set(m.typeName, f);
    for (const n of m.nestedMessages) message(n, f);
    for (const e of m.nestedEnums) out.set(e.typeName, f);
  };
  for (const f of files) {
    for (const s of f.services) {
      out.set(s.typeName, f);
      for (const m of s.methods) out.set(`${s.typeName}.${m.name}`, f);
    }
    for (const m of f.messages) message(m, f);
    for (const e of f.enums) out.set(e.typeName, f);
  }
  return out;
}

/** A file and everything it imports, dependencies first, as serialized FileDescriptorProtos. */
function withDependencies(file: DescFile): Uint8Array[] {
  const order = [...filesByName([file]).values()].reverse();
  return order.map((f) => toBinary(FileDescriptorProtoSchema, f.proto));
}

/** What reflection knows: every file reachable from the services, and where each symbol lives. */
interface Index {
  files: Map<string, DescFile>;
  symbols: Map<string, DescFile>;
  services: string[];
}

/** The answer to one reflection request. */
function answer(index: Index, req: Request): Answer {
  const q = req.messageRequest;
  const found = (f: DescFile | undefined, what: string): Answer =>
    f
      ? { case: "fileDescriptorResponse", value: { fileDescriptorProto: withDependencies(f) } }
      : { case: "errorResponse", value: { errorCode: Code.NotFound, errorMessage: `${what} not found` } };
  switch (q.case) {
    case "listServices":
      return { case: "listServicesResponse", value: { service: index.services.map((name) => ({ name })) } };
    case "fileByFilename":
      return found(index.files.get(q.value), `file ${q.value}`);
    case "fileContainingSymbol":
      return found(index.symbols.get(q.value.replace(/^\./, "")), `symbol ${q.value}`);
    case "allExtensionNumbersOfType":
      return { case: "allExtensionNumbersResponse", value: { baseTypeName: q.value, extensionNumber: [] } };
    default:
      return {
        case: "errorResponse",
        value: { errorCode: Code.Unimplemented, errorMessage: "not supported" },
      };
  }
}

/**
 * gRPC server reflection (v1 and v1alpha) over the services Attic serves, so
 * `buf curl` and `grpcurl -plaintext` work without local .proto files. It
 * reveals the schema only, the same as the public /swagger/rpc documents,
 * so it needs no credentials. Bidirectional streaming: HTTP/2 only.
 */
export function registerReflection(
  router: ConnectRouter,
  services: readonly DescService[],
  options: Partial<UniversalHandlerOptions>,
): void {
  const all = [...services, v1.ServerReflection, v1alpha.ServerReflection];
  const files = filesByName(all.map((s) => s.file));
  const index: Index = { files, symbols: symbolIndex(files.values()), services: all.map((s) => s.typeName) };
  const impl = {
    async *serverReflectionInfo(requests: AsyncIterable<Request>) {
      for await (const req of requests) {
        // Echo the request by value: v1 and v1alpha messages have the same fields, not the same type.
        const q = req.messageRequest;
        const echo = q.case === "fileContainingExtension" || q.case === undefined ? { case: undefined } : q;
        yield {
          validHost: req.host,
          originalRequest: { host: req.host, messageRequest: echo },
          messageResponse: answer(index, req),
        };
      }
    },
  };
  router.service(v1.ServerReflection, impl as unknown as ServiceImpl<typeof v1.ServerReflection>, options);
  router.service(
    v1alpha.ServerReflection,
    impl as unknown as ServiceImpl<typeof v1alpha.ServerReflection>,
    options,
  );
}
