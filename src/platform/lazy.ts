import { AppError, errorBody } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { Handler } from "./listener.ts";

/**
 * `load` run on the first call only; every later caller gets the same
 * promise. A rejected load is forgotten, so the next call tries again.
 *
 * For subsystems that start-up does not need (RPC, WebDAV, tus uploads):
 * their modules are imported by `load` with a dynamic `import()`, which the
 * single executable's bundle turns into a module evaluated on that call.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };
}

/**
 * A Node request handler built on its first request: requests that arrive
 * while it loads wait for it (their bodies stay unread in the socket) and
 * are then handled in arrival order. If loading fails, the request is
 * answered 500 with the REST error body and the failure logged; the next
 * request tries again.
 */
export function lazyHandler(load: () => Promise<Handler>, log: Logger, what: string): Handler {
  let ready: Handler | undefined;
  const get = loadOnce(async () => {
    ready = await load();
    return ready;
  });
  return function lazyHandlerOnFirstUse(req, res) {
    if (ready) return ready(req, res);
    get().then(
      (handler) => handler(req, res),
      (err: unknown) => {
        log.error({ err }, `loading ${what} failed`);
        if (res.headersSent) return void res.destroy();
        const body = JSON.stringify(errorBody(new AppError("INTERNAL", "internal error")));
        res.statusCode = 500;
        res.setHeader("content-type", "application/json");
        res.setHeader("content-length", Buffer.byteLength(body));
        res.end(body);
      },
    );
  };
}
