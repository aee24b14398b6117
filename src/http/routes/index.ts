import type { AppContext } from "../../context.ts";
import type { Router } from "../env.ts";
import type { Guards } from "../router.ts";
import { apiKeysRoutes } from "./api-keys.ts";
import { authRoutes } from "./auth.ts";
import { directoriesRoutes } from "./directories.ts";
import { filesRoutes } from "./files.ts";
import { filesystemRoutes } from "./filesystem.ts";
import { grantsRoutes } from "./grants.ts";
import { groupsRoutes } from "./groups.ts";
import { healthRoutes } from "./health.ts";
import { metricsRoutes } from "./metrics.ts";
import { organizationsRoutes } from "./organizations.ts";
import { playbackRoutes } from "./playback.ts";
import { rolesRoutes } from "./roles.ts";
import { searchRoutes } from "./search.ts";
import { settingsRoutes } from "./settings.ts";
import { sharesRoutes } from "./shares.ts";
import { streamTokenRoutes } from "./stream-token.ts";
import { streamingRoutes } from "./streaming.ts";
import { tagsRoutes } from "./tags.ts";
import { trashRoutes } from "./trash.ts";
import { uploadsRoutes } from "./uploads.ts";
import { usersRoutes } from "./users.ts";
import { watchedFoldersRoutes } from "./watched-folders.ts";

/** Every REST route module, under /api/v1 (health also at the root). */
export function mountRoutes(app: Router, ctx: AppContext, guards: Guards): void {
  app.route("/", healthRoutes(ctx));
  app.route("/", metricsRoutes(ctx));
  const modules = [
    healthRoutes(ctx),
    authRoutes(ctx, guards),
    apiKeysRoutes(ctx, guards),
    usersRoutes(ctx, guards),
    organizationsRoutes(ctx, guards),
    rolesRoutes(ctx, guards),
    groupsRoutes(ctx, guards),
    filesRoutes(ctx, guards),
    directoriesRoutes(ctx, guards),
    trashRoutes(ctx, guards),
    grantsRoutes(ctx, guards),
    sharesRoutes(ctx, guards),
    uploadsRoutes(ctx, guards),
    searchRoutes(ctx, guards),
    tagsRoutes(ctx, guards),
    watchedFoldersRoutes(ctx, guards),
    filesystemRoutes(ctx, guards),
    playbackRoutes(ctx, guards),
    streamingRoutes(ctx, guards),
    settingsRoutes(ctx, guards),
    streamTokenRoutes(ctx, guards),
  ];
  for (const m of modules) app.route("/api/v1", m);
}
