import type { ServiceImpl } from "@connectrpc/connect";
import type { AppContext } from "../context.ts";
import type { GrantsDto } from "../domain/access/grants.schemas.ts";
import type { GrantService } from "../gen/attic/v1/grant_pb.ts";
import { actorOf } from "./call-context.ts";

const toProto = (g: GrantsDto) => ({
  ...(g.directory_id !== null ? { directoryId: g.directory_id } : {}),
  own: g.own,
  ...(g.governed_by !== null ? { governedBy: g.governed_by } : {}),
  personal: g.personal,
  ...(g.owner_id !== null ? { ownerId: g.owner_id } : {}),
  adminsManage: g.admins_manage,
  grants: g.grants.map((x) => ({
    subjectType: x.subject_type,
    subjectId: x.subject_id,
    subjectName: x.subject_name,
    level: x.level,
  })),
  yourLevel: g.your_level,
});

const where = (directoryId: string | undefined) => ({ directory_id: directoryId ?? null });

/** GrantService over the same grants service as /api/v1/grants. */
export function grantsRpc(ctx: AppContext): ServiceImpl<typeof GrantService> {
  const grants = () => ctx.services.grants;
  return {
    getGrants: (req, call) => ({ grants: toProto(grants().get(actorOf(call), where(req.directoryId))) }),
    setGrants: async (req, call) => ({
      grants: toProto(
        await grants().set(actorOf(call), {
          ...where(req.directoryId),
          grants: req.grants.map((g) => ({
            subject_type: g.subjectType,
            ...(g.subjectId ? { subject_id: g.subjectId } : {}),
            level: g.level,
          })),
        }),
      ),
    }),
    clearGrants: async (req, call) => ({
      grants: toProto(await grants().clear(actorOf(call), where(req.directoryId))),
    }),
    listSubjects: (_req, call) => ({
      subjects: grants()
        .subjects(actorOf(call))
        .subjects.map((s) => ({
          subjectType: s.subject_type,
          subjectId: s.subject_id,
          subjectName: s.subject_name,
          level: "",
        })),
    }),
    getHomeDirectory: (_req, call) => ({ directoryId: grants().home(actorOf(call)) }),
  };
}
