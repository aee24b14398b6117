/**
 * Wire shapes of the public REST API, derived from the server's own zod
 * schemas (the ones that also produce /swagger/doc.json). Type-only imports:
 * nothing of the server reaches the bundle, and a field the server renames or
 * drops is a compile error here instead of a silent `undefined` in the UI.
 */
import type { z } from "@hono/zod-openapi";
import type {
  GrantsSchema,
  SubjectListSchema,
  SubjectSchema,
} from "../../../src/domain/access/grants.schemas.ts";
import type {
  ApiKeyListSchema,
  ApiKeySchema,
  CreatedApiKeySchema,
} from "../../../src/domain/apikeys/apikeys.schemas.ts";
import type { TokenPairSchema } from "../../../src/domain/auth/auth.schemas.ts";
import type {
  DirectorySchema,
  FileContentSchema,
  FileListSchema,
  FileSchema,
  TagSchema,
} from "../../../src/domain/files/files.schemas.ts";
import type {
  ContinueWatchingSchema,
  PlaybackInfoSchema,
  PlaybackPositionSchema,
} from "../../../src/domain/playback/playback.schemas.ts";
import type { RoleListSchema, RoleSchema } from "../../../src/domain/roles/roles.schemas.ts";
import type { SearchResultSchema } from "../../../src/domain/search/search.schemas.ts";
import type {
  CreatedShareSchema,
  ShareListSchema,
  ShareSchema,
} from "../../../src/domain/shares/shares.schemas.ts";
import type { PathSuggestionsSchema } from "../../../src/domain/suggestions/suggestions.schemas.ts";
import type { FileTagsSchema, TagListSchema } from "../../../src/domain/tags/tags.schemas.ts";
import type {
  ProfileSchema,
  UserDetailSchema,
  UserListSchema,
} from "../../../src/domain/users/users.schemas.ts";
import type { WatchedFolderSchema } from "../../../src/domain/watched/watched.schemas.ts";
import type { StreamTokenSchema } from "../../../src/http/routes/stream-token.ts";
import type { FolderList } from "../../../src/http/routes/watched-folders.ts";

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
export type PlaybackPosition = z.output<typeof PlaybackPositionSchema>;
export type ContinueWatching = z.output<typeof ContinueWatchingSchema>;
export type WatchedFolder = z.output<typeof WatchedFolderSchema>;
export type WatchedFolderList = z.output<typeof FolderList>;
export type Directory = z.output<typeof DirectorySchema>;
export type FileContent = z.output<typeof FileContentSchema>;
export type TagList = z.output<typeof TagListSchema>;
export type FileTags = z.output<typeof FileTagsSchema>;
export type UserList = z.output<typeof UserListSchema>;
export type RoleList = z.output<typeof RoleListSchema>;
export type ShareList = z.output<typeof ShareListSchema>;
export type SubjectList = z.output<typeof SubjectListSchema>;
export type ApiKeyList = z.output<typeof ApiKeyListSchema>;
export type PathSuggestions = z.output<typeof PathSuggestionsSchema>;
export type StreamToken = z.output<typeof StreamTokenSchema>;
