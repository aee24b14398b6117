import { useEffect, useRef, useState } from "preact/hooks";
import { streamUrl } from "../lib/api.ts";
import { formatDuration, kindOf, messageOf } from "../lib/format.ts";
import { getPosition, savePosition } from "../lib/playback.ts";
import type { FileRec } from "../lib/types.ts";

const SAVE_EVERY_MS = 5000;

/**
 * Why a media element stopped, in words: a media element only says "error",
 * so ask the server with a one-byte range what it answers for the same link.
 */
async function explainFailure(el: HTMLMediaElement, url: string): Promise<string> {
  const code = el.error?.code;
  try {
    const res = await fetch(url, { headers: { Range: "bytes=0-0" } });
    if (res.status === 429) {
      const wait = res.headers.get("Retry-After");
      return `the server is limiting requests right now${wait ? `; try again in ${wait} s` : ""}.`;
    }
    if (res.status === 401 || res.status === 403)
      return "the link expired or your access was removed. Retry to get a fresh link.";
    if (res.status === 404) return "the file is gone (moved to the trash, or its drive is unplugged).";
    if (res.status >= 500) return "the server could not read the file (its drive may be offline).";
  } catch {
    return "the connection to the server was lost.";
  }
  if (code === 4 || code === 3) {
    return "this browser cannot decode this file's format. Download it, or open it in a player such as VLC.";
  }
  return "playback was interrupted.";
}

/**
 * Audio or video straight from /files/:id/stream (byte ranges, so seeking
 * works on large files), through a short-lived link since a media element
 * cannot send the Authorization header. Resumes at the saved position and
 * saves it while playing, on pause, on seek and when the page goes away.
 */
export function MediaPlayer({ f }: { f: FileRec }) {
  const ref = useRef<HTMLVideoElement & HTMLAudioElement>(null);
  const [src, setSrc] = useState<string>();
  const [resumeAt, setResumeAt] = useState<number>();
  const [note, setNote] = useState<string>();
  const [error, setError] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let alive = true;
    setSrc(undefined);
    setNote(undefined);
    setFailure(undefined);
    Promise.all([streamUrl(f.id, "stream"), getPosition(f.id).catch(() => undefined)])
      .then(([url, pos]) => {
        if (!alive) return;
        const p = pos?.position_seconds ?? 0;
        const d = pos?.duration_seconds || 0;
        // Finished (within 5% of the end) or barely started: start from the top.
        setResumeAt(p >= 2 && (!d || p < d * 0.95) ? p : undefined);
        setSrc(url);
      })
      .catch((e) => alive && setError(messageOf(e)));
    return () => {
      alive = false;
    };
  }, [f.id, attempt]);

  useEffect(() => {
    const el = ref.current;
    if (!el || !src) return;
    let last = 0;
    const save = (force = false, keepalive = false) => {
      if (!el.duration || (!force && Date.now() - last < SAVE_EVERY_MS)) return;
      last = Date.now();
      void savePosition(f.id, el.currentTime, el.duration, keepalive);
    };
    let resumed = false;
    const onMeta = () => {
      if (!resumed && resumeAt !== undefined && resumeAt < el.duration) {
        resumed = true;
        el.currentTime = resumeAt;
        setNote(`Resumed at ${formatDuration(resumeAt)}`);
      }
    };
    const onTime = () => save();
    const onPause = () => save(true);
    const onEnded = () => save(true);
    const onLeave = () => save(true, true);
    const onError = () => {
      void explainFailure(el, src).then((why) => setFailure(`Playback stopped: ${why}`));
    };
    el.addEventListener("error", onError);
    // It may have failed before this effect ran.
    if (el.error) onError();
    el.addEventListener("loadedmetadata", onMeta);
    // A small file may have its metadata before this effect runs: resume now then.
    if (el.readyState >= 1) onMeta();
    el.addEventListener("timeupdate", onTime);
    el.addEventListener("pause", onPause);
    el.addEventListener("seeked", onPause);
    el.addEventListener("ended", onEnded);
    window.addEventListener("pagehide", onLeave);
    return () => {
      onLeave();
      el.removeEventListener("error", onError);
      el.removeEventListener("loadedmetadata", onMeta);
      el.removeEventListener("timeupdate", onTime);
      el.removeEventListener("pause", onPause);
      el.removeEventListener("seeked", onPause);
      el.removeEventListener("ended", onEnded);
      window.removeEventListener("pagehide", onLeave);
    };
  }, [src, f.id, resumeAt]);

  if (error) return <p class="error">Cannot play this file: {error}</p>;
  const video = kindOf(f) === "video";
  return (
    <div class={`player ${video ? "player-video" : "player-audio"}`}>
      {src ? (
        video ? (
          // biome-ignore lint/a11y/useMediaCaption: household media rarely has caption tracks
          <video ref={ref} src={src} controls autoplay playsInline preload="metadata" aria-label={f.name} />
        ) : (
          // biome-ignore lint/a11y/useMediaCaption: audio
          <audio ref={ref} src={src} controls autoplay preload="metadata" aria-label={f.name} />
        )
      ) : (
        <p class="muted">Loading…</p>
      )}
      {failure ? (
        <p class="error" role="alert">
          {failure}{" "}
          <button type="button" class="link" onClick={() => setAttempt((n) => n + 1)}>
            Retry
          </button>
        </p>
      ) : null}
      {note ? (
        <p class="resume-note" role="status">
          {note}{" "}
          <button
            type="button"
            class="link"
            onClick={() => {
              if (ref.current) ref.current.currentTime = 0;
              setNote(undefined);
            }}
          >
            Start over
          </button>
        </p>
      ) : null}
    </div>
  );
}
