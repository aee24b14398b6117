import { useEffect, useState } from "preact/hooks";
import { currentSession, onSession, type Session } from "./api.ts";

/** The current session, re-rendering when it changes (sign-in, refresh, profile read, sign-out). */
export function useSession(): Session | undefined {
  const [s, setS] = useState(currentSession);
  useEffect(() => onSession(setS), []);
  return s;
}
