import { useCallback, useEffect, useState } from "preact/hooks";
import { api } from "./api.ts";
import type { Grants } from "./types.ts";

/** The caller's access to a folder (undefined = the top): its grants and `your_level`. */
export function useAccess(dirId: string | undefined) {
  const [grants, setGrants] = useState<Grants>();
  const [version, setVersion] = useState(0);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  useEffect(() => {
    let live = true;
    setGrants(undefined);
    api<Grants>("GET", "/grants", { query: { directory_id: dirId ?? "" } }).then(
      (g) => live && setGrants(g),
      () => live && setGrants(undefined),
    );
    return () => {
      live = false;
    };
  }, [dirId, version]);
  return { grants, reload };
}
