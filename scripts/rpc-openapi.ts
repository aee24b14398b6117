import {
  type DescField,
  type DescFile,
  type DescMessage,
  type DescMethod,
  ScalarType,
} from "@bufbuild/protobuf";
import { getComments } from "@bufbuild/protoplugin";

/**
 * OpenAPI 2.0 (swagger) descriptions of Connect services, one document per
 * .proto file, in the shape docs/api.md describes: every RPC is a POST at
 * `/<package>.<Service>/<Method>` with the request message as JSON body,
 * server streaming appears as an ordinary POST, bytes are base64 strings,
 * the version reads "version not set" and there are no security definitions.
 * JSON names are the proto field names (snake_case): the server answers with
 * them (jsonOptions.useProtoFieldName) and accepts both spellings.
 */

type Schema = Record<string, unknown>;

/** Definition name of a message: `v1File` for attic.v1.File, `protobufStruct` for google.protobuf.Struct. */
export function definitionName(m: DescMessage): string {
  const pkg = m.file.proto.package;
  const last = pkg.split(".").pop() ?? "";
  const local = m.typeName.slice(pkg.length + 1).replaceAll(".", "");
  return `${last}${local}`;
}

const SCALARS: Partial<Record<ScalarType, Schema>> = {
  [ScalarType.STRING]: { type: "string" },
  [ScalarType.BOOL]: { type: "boolean" },
  [ScalarType.BYTES]: { type: "string", format: "byte" },
  [ScalarType.DOUBLE]: { type: "number", format: "double" },
  [ScalarType.FLOAT]: { type: "number", format: "float" },
  [ScalarType.INT32]: { type: "integer", format: "int32" },
  [ScalarType.SINT32]: { type: "integer", format: "int32" },
  [ScalarType.SFIXED32]: { type: "integer", format: "int32" },
  [ScalarType.UINT32]: { type: "integer", format: "int64" },
  [ScalarType.FIXED32]: { type: "integer", format: "int64" },
  // Proto JSON writes 64-bit integers as strings.
  [ScalarType.INT64]: { type: "string", format: "int64" },
  [ScalarType.SINT64]: { type: "string", format: "int64" },
  [ScalarType.SFIXED64]: { type: "string", format: "int64" },
  [ScalarType.UINT64]: { type: "string", format: "uint64" },
  [ScalarType.FIXED64]: { type: "string", format: "uint64" },
};

/** Well-known types whose JSON form is not an object of fields. */
const WKT: Record<string, Schema> = {
  "google.protobuf.Struct": { type: "object", additionalProperties: {} },
  "google.protobuf.Value": {},
  "google.protobuf.ListValue": { type: "array", items: {} },
  "google.protobuf.Timestamp": { type: "string", format: "date-time" },
  "google.protobuf.Duration": { type: "string" },
  "google.protobuf.Empty": { type: "object" },
};

function describe(text: string | undefined): Schema {
  const t = text?.trim();
  return t ? { description: t.replace(/\n\s*/g, " ") } : {};
}

class Collector {
  readonly definitions: Record<string, Schema> = {};

  ref(m: DescMessage): Schema {
    const name = definitionName(m);
    if (!(name in this.definitions)) {
      this.definitions[name] = {}; // placeholder first: messages may be recursive
      this.definitions[name] = WKT[m.typeName] ?? this.message(m);
    }
    return { $ref: `#/definitions/${name}` };
  }

  private message(m: DescMessage): Schema {
    const properties: Record<string, Schema> = {};
    for (const f of m.fields) properties[f.name] = { ...this.field(f), ...describe(fieldComment(f)) };
    return { type: "object", ...describe(getComments(m).leading), properties };
  }

  private field(f: DescField): Schema {
    switch (f.fieldKind) {
      case "scalar":
        return { ...SCALARS[f.scalar] };
      case "enum":
        return { type: "string", enum: f.enum.values.map((v) => v.name) };
      case "message":
        return this.ref(f.message);
      case "list":
        return {
          type: "array",
          items:
            f.listKind === "scalar"
              ? { ...SCALARS[f.scalar] }
              : f.listKind === "enum"
                ? { type: "string", enum: f.enum.values.map((v) => v.name) }
                : this.ref(f.message),
        };
      case "map":
        return {
          type: "object",
          additionalProperties:
            f.mapKind === "scalar"
              ? { ...SCALARS[f.scalar] }
              : f.mapKind === "enum"
                ? { type: "string" }
                : this.ref(f.message),
        };
    }
  }
}

function fieldComment(f: DescField): string | undefined {
  const own = getComments(f).leading?.trim();
  const oneof = f.oneof
    ? `One of \`${f.oneof.name}\`: set only one of ${f.oneof.fields.map((o) => o.name).join(", ")}.`
    : "";
  return [own, oneof].filter(Boolean).join(" ") || undefined;
}

function operation(method: DescMethod, c: Collector): Schema {
  const service = method.parent;
  const streaming =
    method.methodKind === "server_streaming"
      ? " Server streaming: the answer is a stream of these messages."
      : method.methodKind === "client_streaming"
        ? " Client streaming: the request is a stream of these messages."
        : method.methodKind === "bidi_streaming"
          ? " Bidirectional streaming."
          : "";
  const summary = getComments(method).leading?.trim().replace(/\n\s*/g, " ") ?? "";
  return {
    ...(summary || streaming ? { summary: (summary + streaming).trim() } : {}),
    operationId: `${service.name}_${method.name}`,
    responses: {
      "200": { description: "A successful response.", schema: c.ref(method.output) },
      default: { description: "An unexpected error response.", schema: { $ref: "#/definitions/rpcStatus" } },
    },
    parameters: [{ name: "body", in: "body", required: true, schema: c.ref(method.input) }],
    tags: [service.name],
  };
}

/** The swagger document of one .proto file (services and the messages they reach). */
export function swaggerFor(file: DescFile): Schema {
  const c = new Collector();
  const paths: Record<string, Schema> = {};
  for (const service of file.services) {
    for (const method of service.methods) {
      paths[`/${service.typeName}/${method.name}`] = { post: operation(method, c) };
    }
  }
  if (file.services.length === 0) for (const m of file.messages) c.ref(m);
  c.definitions.rpcStatus = {
    type: "object",
    description: 'An error. In Connect JSON: {"code": "not_found", "message": "..."}.',
    properties: {
      code: { type: "string", description: "Lowercase code name such as not_found, invalid_argument." },
      message: { type: "string" },
      details: { type: "array", items: { type: "object" } },
    },
  };
  return {
    swagger: "2.0",
    info: { title: file.name + ".proto", version: "version not set" },
    tags: file.services.map((s) => ({ name: s.name, ...describe(getComments(s).leading) })),
    consumes: ["application/json"],
    produces: ["application/json"],
    paths,
    definitions: Object.fromEntries(Object.entries(c.definitions).sort(([a], [b]) => a.localeCompare(b))),
  };
}
