/**
 * Wire shapes of the public REST API, derived from the server's own zod
 * schemas (the ones that also produce /swagger/doc.json). Type-only imports:
 * nothing of the server reaches the bundle, and a field the server renames or
 * drops is a compile error here instead of a silent `undefined` in the UI.
 */
import type { z } from "@hono/zod-openapi";
import type { GrantsSchema, SubjectSchema } from "../../../src/domain/access/grants.schemas.ts";
import type { ApiKeySchema, CreatedApiKeySchema } from "../../../src/domain/apikeys/apikeys.schemas.ts";
import type { TokenPairSchema } from "../../../src/domain/auth/auth.schemas.ts";
import type { FileListSchema, FileSchema, TagSchema } from "../../../src/domain/files/files.schemas.ts";
import type {
  ContinueWatchingSchema,
  PlaybackInfoSchema,
  PlaybackPositionSchema,
} from "../../../src/domain/playback/playback.schemas.ts";
import type { RoleSchema } from "../../../src/domain/roles/roles.schemas.ts";
import type { SearchResultSchema } from "../../../src/domain/search/search.schemas.ts";
import type { CreatedShareSchema, ShareSchema } from "../../../src/domain/shares/shares.schemas.ts";
import type { ProfileSchema, UserDetailSchema } from "../../../src/domain/users/users.schemas.ts";
import type { WatchedFolderSchema } from "../../../src/domain/watched/watched.schemas.ts";

export type Tag = z.output<typeof TagSchema>;
export type FileRec = z.output<typeof FileSchema>;
export type FileList = z.output<typeof FileListSchema>;
export type SearchResult = z.output<typeof SearchResultSchema>;
/** The signed-in user as GET /auth/profile describes them. */
export type User = z.output<typeof UserDetailSchema>;
export type Profile = z.output<typeof ProfileSchema>;
export type Grants = z.output<typeof GrantsSchema>;
export type Share = z.output<typeof ShareSchema>;
export type PlaybackInfo = z.output<typeof PlaybackInfoSchema>;
export type CreatedShare = z.output<typeof CreatedShareSchema>;
export type GrantSubject = z.output<typeof SubjectSchema>;
export type TokenPair = z.output<typeof TokenPairSchema>;
export type Role = z.output<typeof RoleSchema>;
export type ApiKey = z.output<typeof ApiKeySchema> &
  Partial<Pick<z.output<typeof CreatedApiKeySchema>, "key">>;
export type PlaybackPosition = z.output<typeof PlaybackPositionSchema> & {
  file?: z.output<typeof ContinueWatchingSchema>["items"][number]["file"];
};
export type WatchedFolder = z.output<typeof WatchedFolderSchema>;
