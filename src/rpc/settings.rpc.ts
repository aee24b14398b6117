import type { JsonObject } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { AppContext } from "../context.ts";
import type { SettingsService } from "../gen/attic/v1/settings_pb.ts";
import { actorOf } from "./call-context.ts";

/** SettingsService over the same domain service as /api/v1/settings. */
export function settingsRpc(ctx: AppContext): Partial<ServiceImpl<typeof SettingsService>> {
  const svc = ctx.services.settings;
  const out = (settings: Record<string, unknown>) => ({ settings: settings as JsonObject });
  return {
    getUserSettings: (_req, call) => out(svc.getUser(actorOf(call))),
    updateUserSettings: (req, call) => out(svc.updateUser(actorOf(call), req.settings ?? {})),
    getAppSettings: (_req, call) => out(svc.getApp(actorOf(call))),
    updateAppSettings: (req, call) => out(svc.updateApp(actorOf(call), req.settings ?? {})),
  };
}
