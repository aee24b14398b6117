import type { z } from "@hono/zod-openapi";
import type { Db } from "../../db/client.ts";
import { conflictOnUnique } from "../../db/unique.ts";
import { AppError, notFound } from "../../errors.ts";
import { isId, newId, nowIso } from "../../platform/ids.ts";
import { type Access, LEVEL, type Level } from "../access/access.ts";
import { type Actor, requirePermission } from "../actor.ts";
import { parseInput } from "../parse-input.ts";
import { createTagsRepo, type TagDto, tagsForFiles } from "./tags.repo.ts";
import { AttachTagsInput, CreateTagInput, DEFAULT_TAG_COLOR, UpdateTagInput } from "./tags.schemas.ts";

/** A missing body validates as an empty one, so the first missing field is named. */
const parse = <S extends z.ZodType>(schema: S, input: unknown): z.output<S> =>
  parseInput(schema, input ?? {});

const tagNotFound = () => notFound("tag");
const fileNotFound = () => notFound("file", "FILE_NOT_FOUND");

/**
 * Tags: per-organization labels (name unique ignoring case, `#rrggbb` color)
 * attached to files. Reading needs file:read, changing file:write. Another
 * organization's tag or file answers 404 like a missing one.
 */
export function createTagsService(deps: { db: Db; access: Access }) {
  const { db } = deps;
  const repo = createTagsRepo(db);

  const requireTag = (actor: Actor, id: string): TagDto => {
    const tag = isId(id) ? repo.get(actor.organizationId, id) : undefined;
    if (!tag) throw tagNotFound();
    return tag;
  };
  /** A live file the actor holds `need` on in its folder's grants (404 below read, 403 above). */
  const requireFile = (actor: Actor, fileId: string, need: Level = LEVEL.read): void => {
    const row = isId(fileId) ? repo.liveFile(actor.organizationId, fileId) : undefined;
    if (!row) throw fileNotFound();
    deps.access.check(actor, row, need);
  };
  const assertNameFree = (actor: Actor, name: string, exceptId?: string): void => {
    const clash = repo.byName(actor.organizationId, name);
    if (clash && clash.id !== exceptId) throw new AppError("CONFLICT", `a tag named "${name}" exists`);
  };
  const tagsOf = (fileId: string): TagDto[] => tagsForFiles(db, [fileId]).get(fileId) ?? [];

  return {
    list(actor: Actor): { tags: TagDto[]; total: number } {
      requirePermission(actor, "file:read");
      const tags = repo.list(actor.organizationId);
      return { tags, total: tags.length };
    },

    get(actor: Actor, id: string): TagDto {
      requirePermission(actor, "file:read");
      return requireTag(actor, id);
    },

    create(actor: Actor, input: unknown): TagDto {
      requirePermission(actor, "file:write");
      const { name, color } = parse(CreateTagInput, input);
      assertNameFree(actor, name);
      const tag: TagDto = { id: newId(), name, color: color ?? DEFAULT_TAG_COLOR, created_at: nowIso() };
      conflictOnUnique(`a tag named "${name}" exists`, () => repo.insert(actor.organizationId, tag));
      return tag;
    },

    update(actor: Actor, id: string, input: unknown): TagDto {
      requirePermission(actor, "file:write");
      const patch = parse(UpdateTagInput, input);
      const tag = requireTag(actor, id);
      if (patch.name !== undefined) assertNameFree(actor, patch.name, tag.id);
      conflictOnUnique(`a tag named "${patch.name}" exists`, () =>
        repo.update(actor.organizationId, tag.id, patch),
      );
      return { ...tag, ...patch };
    },

    delete(actor: Actor, id: string): void {
      requirePermission(actor, "file:write");
      if (!isId(id) || !repo.delete(actor.organizationId, id)) throw tagNotFound();
    },

    /** The tags of a live file of the organization. */
    fileTags(actor: Actor, fileId: string): TagDto[] {
      requirePermission(actor, "file:read");
      requireFile(actor, fileId);
      return tagsOf(fileId);
    },

    /** Attaches tags (idempotent) and answers the file's tags after the change. */
    attach(actor: Actor, fileId: string, input: unknown): TagDto[] {
      requirePermission(actor, "file:write");
      const body = parse(AttachTagsInput, input);
      requireFile(actor, fileId, LEVEL.write);
      const wanted = [...new Set([...(body.tag_id ? [body.tag_id] : []), ...(body.tag_ids ?? [])])];
      const found = new Set(repo.existing(actor.organizationId, wanted));
      const missing = wanted.filter((id) => !found.has(id));
      if (missing.length > 0) throw new AppError("NOT_FOUND", "tag not found", { tag_ids: missing });
      repo.attach(fileId, wanted, nowIso());
      return tagsOf(fileId);
    },

    /** Detaches a tag; detaching one that is not attached succeeds (idempotent). */
    detach(actor: Actor, fileId: string, tagId: string): void {
      requirePermission(actor, "file:write");
      requireFile(actor, fileId, LEVEL.write);
      requireTag(actor, tagId);
      repo.detach(fileId, tagId);
    },
  };
}

export type TagsService = ReturnType<typeof createTagsService>;
